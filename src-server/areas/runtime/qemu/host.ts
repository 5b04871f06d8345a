/** Facts about the host that the QEMU command line depends on. */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { boxEnv } from '../../../platform/settings.js';

const execFileP = promisify(execFile);

export const QEMU_BINARY = boxEnv().qemu ?? 'qemu-system-x86_64';

let qemuVersionCache: string | undefined;
export async function qemuVersion(): Promise<string> {
  if (!qemuVersionCache) {
    const { stdout } = await execFileP(QEMU_BINARY, ['--version']);
    qemuVersionCache = stdout.split('\n')[0].trim();
  }
  return qemuVersionCache;
}

/**
 * Host TSC frequency in kHz for the guest's `tsc_early_khz` (on microvm the guest cannot
 * calibrate against a PIT; a wrong value makes guest time run wrong). Under TCG and KVM
 * the guest reads the host TSC, so the host's rate is the right one. Sources, first hit
 * wins: BOX_TSC_KHZ; sysfs `tsc_freq_khz` (present on some kernels); the nominal
 * "@ x.xxGHz" of Intel model names (that is the TSC rate); else /proc/cpuinfo "cpu MHz",
 * which equals tsc_khz on hosts without cpufreq (VMs, like this machine) but is the
 * current clock on hosts that scale frequency. Needs no dmesg access.
 */
export function hostTscKhz(): number {
  const env = boxEnv().tscKhz;
  if (env) return Math.round(env);
  try {
    const v = Number(readFileSync('/sys/devices/system/cpu/cpu0/tsc_freq_khz', 'utf8').trim());
    if (v > 0) return v;
  } catch {
    /* not exposed by this kernel */
  }
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  const nominal = /model name\s*:.*@\s*([\d.]+)GHz/.exec(cpuinfo);
  if (nominal) return Math.round(Number(nominal[1]) * 1e6);
  const mhz = /cpu MHz\s*:\s*([\d.]+)/.exec(cpuinfo);
  if (mhz) return Math.round(Number(mhz[1]) * 1000);
  throw new Error('cannot determine the host TSC frequency; set BOX_TSC_KHZ');
}

export function hostKernelRelease(): string {
  try {
    return readFileSync('/proc/sys/kernel/osrelease', 'utf8').trim();
  } catch {
    return process.platform;
  }
}
