/**
 * Accelerator detection. KVM (Linux) or HVF (macOS) is used only after a real guest
 * boots on it (here /dev/kvm exists but guests die on it), else TCG. The probe boots the
 * guest kernel with `box.probe=1` (the initramfs prints BOX-PROBE-OK and reboots) and the
 * answer is cached once per machine (accelCacheFile: ~/.cache/box-desktop/accel.json, or
 * BOX_ACCEL_CACHE), keyed by QEMU version, host kernel and the guest kernel's content.
 * BOX_ACCEL=kvm|hvf|tcg forces an answer. The probe's QEMU dies with the process that
 * started it, kill -9 included (box-qemu-launch's parent-death signal), and its command
 * line names that process (`-name box-probe-<pid>`).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { accessSync, constants, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { qemuLauncher } from '../guest-image/agent-build.js';
import { imageCacheRoot } from '../guest-image/guest-image.js';
import { QEMU_BINARY, hostKernelRelease, hostTscKhz, qemuVersion } from './host.js';
import type { Accel } from './vm-config.js';
import { boxEnv } from '../../../platform/settings.js';

export interface AccelResult {
  accel: Accel;
  reason: string;
}

interface DetectOptions {
  dataDir?: string;
  /** Guest kernel and initrd to probe with; found in the image cache when omitted. */
  kernel?: string;
  initrd?: string;
  force?: boolean;
  timeoutMs?: number;
}

function newestImage(dataDir: string): { kernel: string; initrd: string } | undefined {
  const root = imageCacheRoot(dataDir);
  if (!existsSync(root)) return undefined;
  const metas = readdirSync(root)
    .map((d) => join(root, d, 'image.json'))
    .filter((p) => existsSync(p))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  return metas[0] ? (JSON.parse(readFileSync(metas[0], 'utf8')) as { kernel: string; initrd: string }) : undefined;
}

/** Boots the probe guest on `accel`; true when the marker appears on the serial console. */
export function probeBoot(accel: Exclude<Accel, 'tcg'> | 'tcg', kernel: string, initrd: string, timeoutMs: number): Promise<{ ok: boolean; output: string }> {
  const cpu = accel === 'tcg' ? 'max' : 'host';
  const args = [
    '-name',
    `box-probe-${process.pid}`,
    '-M',
    'microvm',
    '-accel',
    accel,
    '-cpu',
    cpu,
    '-m',
    '256M',
    '-smp',
    '1',
    '-nodefaults',
    '-no-user-config',
    '-display',
    'none',
    '-no-reboot',
    '-serial',
    'stdio',
    '-kernel',
    kernel,
    '-initrd',
    initrd,
    '-append',
    `console=ttyS0 tsc_early_khz=${hostTscKhz()} cryptomgr.notests mitigations=off 8250.nr_uarts=1 quiet panic=-1 nokaslr box.probe=1`,
  ];
  return qemuLauncher().then((launcher) => runProbe(launcher, args, timeoutMs));
}

function runProbe(launcher: string | undefined, args: string[], timeoutMs: number): Promise<{ ok: boolean; output: string }> {
  return new Promise((resolve) => {
    // Through box-qemu-launch: SIGKILL when this process dies (a probe left running spins at ~95 % CPU forever)
    const child = launcher
      ? spawn(launcher, [QEMU_BINARY, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, BOX_PDEATHSIG_PARENT: String(process.pid) } })
      : spawn(QEMU_BINARY, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let done = false;
    const finish = (ok: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      resolve({ ok, output });
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    const onData = (d: Buffer) => {
      output += d.toString('utf8');
      if (output.includes('BOX-PROBE-OK')) finish(true);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', () => finish(false));
    child.on('close', () => finish(output.includes('BOX-PROBE-OK')));
  });
}

const lastLine = (s: string) => s.trim().split('\n').filter(Boolean).slice(-1)[0] ?? 'no output';

export async function detectAccelerator(opts: DetectOptions = {}): Promise<AccelResult> {
  const forced = boxEnv().accel;
  if (forced) return { accel: forced, reason: 'BOX_ACCEL' };

  const candidate: Accel | undefined = process.platform === 'linux' ? 'kvm' : process.platform === 'darwin' ? 'hvf' : undefined;
  if (!candidate) return { accel: 'tcg', reason: `no hardware accelerator on ${process.platform}` };
  const image = opts.kernel && opts.initrd ? { kernel: opts.kernel, initrd: opts.initrd } : opts.dataDir ? newestImage(opts.dataDir) : undefined;
  if (!image) return { accel: 'tcg', reason: `${candidate} not probed: no guest kernel yet` };

  const key = [await qemuVersion(), hostKernelRelease(), kernelDigest(image.kernel)].join('|');
  const cachePath = accelCacheFile();
  const cache = readCache(cachePath);
  const cached = cache[key];
  if (!opts.force && cached) return { accel: cached.accel, reason: `${cached.reason} (cached)` };
  // A missing /dev/kvm is an answer like a failed probe: cached the same way.
  const probe = kvmAccessible(candidate)
    ? await probeBoot(candidate, image.kernel, image.initrd, opts.timeoutMs ?? 15_000)
    : { ok: false, output: '/dev/kvm missing or not accessible' };
  const result: AccelResult = probe.ok
    ? { accel: candidate, reason: `${candidate} guest booted` }
    : { accel: 'tcg', reason: `${candidate} guest failed to boot: ${lastLine(probe.output)}` };
  await mkdir(dirname(cachePath), { recursive: true });
  const tmp = `${cachePath}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify({ ...readCache(cachePath), [key]: { ...result, probedAt: new Date().toISOString() } }, null, 2));
  await rename(tmp, cachePath);
  return result;
}

/** One answer per machine (QEMU, host kernel, guest kernel): every data dir and test shares it. */
export function accelCacheFile(): string {
  const env = boxEnv();
  return env.accelCache ?? join(env.xdgCacheHome ?? join(homedir(), '.cache'), 'box-desktop', 'accel.json');
}

function readCache(file: string): Record<string, AccelResult> {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, AccelResult>;
  } catch {
    return {};
  }
}

/** The guest kernel by content (its path differs per image cache, its build is reproducible). */
function kernelDigest(kernel: string): string {
  return createHash('sha256').update(readFileSync(kernel)).digest('hex').slice(0, 16);
}

function kvmAccessible(candidate: Accel): boolean {
  if (candidate !== 'kvm') return true;
  try {
    accessSync('/dev/kvm', constants.R_OK | constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
