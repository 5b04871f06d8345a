/** The machine shape of a box VM and the QEMU command line built from it. */
import { shellQuote } from '../../../kernel/util/shell-quote.js';
import { boxEnv } from '../../../platform/settings.js';

export type Accel = 'kvm' | 'hvf' | 'tcg';

export interface PortForward {
  hostPort: number;
  guestPort: number;
  /** Host address to bind; loopback unless told. */
  hostAddress?: string;
}

/** A host directory shared into the guest over virtio-9p, mounted by the initramfs. */
interface ShareMount {
  hostPath: string;
  /** Absolute guest path without spaces, commas or colons. */
  guestPath: string;
  readOnly?: boolean;
}

/** The files of a VM's folder the command line names (box-folder.ts BoxFolder has them). */
interface VmPaths {
  ram: string;
  serialLog: string;
  qmpSock: string;
  qmpAuxSock: string;
  pidFile: string;
  agentSock: string;
  disk: string;
  emptyShare: string;
}

export interface VmConfig {
  kernel: string;
  initrd: string;
  /** Base image under disk.qcow2 (only used when the disk is created). */
  rootfs: string;
  /** Format of rootfs: the built-in image is raw, Boxfile images are qcow2 layers. Default raw. */
  rootfsFormat?: 'raw' | 'qcow2';
  memoryMib: number;
  vcpus: number;
  diskGib: number;
  accel: Accel;
  /** Host TSC kHz passed as tsc_early_khz (fixed at first launch: restores must match). */
  tscKhz: number;
  /** Host port of the egress proxy; the guest reaches it at 10.0.2.100:3128. */
  proxyPort?: number;
  /**
   * Instead of proxyPort: a file holding the port, read per guest connection. A warm-pool
   * clone starts before its box (and its proxy) exists (warm-pool.ts).
   */
  proxyPortFile?: string;
  ports?: PortForward[];
  mounts?: ShareMount[];
  /**
   * At least this many 9p devices (tags vol0..): the slots without a mount export an empty
   * read-only folder. Templates have SHARE_SLOTS so that a clone restores with the same
   * device set whatever its mounts (they are mounted through the agent after the restore).
   */
  shareSlots?: number;
  hostname?: string;
  kernelArgs?: string[];
  /**
   * A template's RAM file mapped copy-on-write (share=off): the box's writes stay private
   * to its QEMU, the file is never written. Unset: the box's own `ram` file, share=on.
   */
  ramFile?: string;
  /**
   * Balloon free page reporting (default on). Off for templates and their clones: QEMU
   * 7.2 discards reported pages of a file-backed RAM block by punching holes in the FILE,
   * even for a private mapping, which would zero pages other clones still use.
   */
  freePageReporting?: boolean;
  /** TCG translation cache (MiB) when the image's work needs more than the default (BOX_TCG_TB_SIZE wins). */
  tcgTbSizeMib?: number;
}

const PROXY_GUEST_ADDR = '10.0.2.100:3128';
/** The most volume mounts a box has (contract: volume_mounts max 8); microvm has 24 virtio-mmio slots. */
export const SHARE_SLOTS = 8;

/**
 * Guest CPU model under TCG: Nehalem is the x86-64-v2 baseline (SSE4.2, POPCNT) that
 * current distro binaries may assume, and boots faster under TCG than `max` here
 * (~2.1 s vs ~2.6 s to the agent, 5-run medians); `-v1` avoids the spec-ctrl warning.
 * `+arat` (always-running APIC timer) is required for a tickless idle: without it the
 * LAPIC timer may stop in C3, there is no HPET on microvm to broadcast, so the kernel
 * never leaves periodic mode (idle QEMU ~45 ms/s of CPU instead of ~7).
 */
const TCG_CPU = 'Nehalem-v1,+arat';

/**
 * TCG translation-cache size (MiB); BOX_TCG_TB_SIZE overrides it. When the cache is full
 * QEMU throws *all* translated code away (`info jit`: "TB flush count"), and the Debian
 * kernel plus a shell's userland need ~20 MiB of it: at 16 MiB a restored clone flushed 3
 * times before its first API exec and once more during it, so that exec cost 110-140 ms of
 * QEMU CPU instead of 10-20 (and a create answered in 240-350 ms instead of 55-70).
 * Only the pages a VM has filled are resident: idle PSS per box moved 36.1 → 37.2 MiB at
 * 128 (16 boxes, bench:runtime --only many); 64 MiB keeps one flush (the restore's) in
 * those measurements and caps a busy box's cost at 1/16 of QEMU's own default (1 GiB).
 */
function tcgTbSizeMib(config: VmConfig): number {
  return boxEnv().tcgTbSizeMib ?? config.tcgTbSizeMib ?? 64;
}

export function kernelCmdline(config: VmConfig, extra: string[] = []): string {
  const args = [
    'console=ttyS0',
    `tsc_early_khz=${config.tscKhz}`,
    // microvm has no HPET/PM timer: the clocksource watchdog compares the TSC with
    // jiffies, which lag under host load, marks the TSC unstable and falls back to
    // jiffies with a periodic 250 Hz tick (~10x idle CPU, drifting time).
    'tsc=reliable',
    'cryptomgr.notests',
    'mitigations=off',
    '8250.nr_uarts=1',
    'quiet',
    'panic=-1',
    'nokaslr',
    // microvm has no PCI bus (its devices are virtio-mmio): without this the kernel probes
    // for one and prints "PCI: Fatal: No config space access function found" on every
    // boot, in every box's console (issue 38). Firecracker boots its guests with it too.
    'pci=off',
  ];
  // TCG only: randomized user mappings cost ~7x per process start. TCG keys translated
  // code by virtual address, so with ASLR every new process translates ld.so and libc
  // again (QEMU CPU per `sh -c true`: 65-94 ms with ASLR, 9 ms without; bench/exec-probe.ts).
  // The VM is the isolation boundary; with KVM/HVF guests keep ASLR.
  if (config.accel === 'tcg') args.push('norandmaps');
  if (config.hostname) args.push(`box.hostname=${config.hostname}`);
  const mounts = config.mounts ?? [];
  for (const m of mounts) {
    if (!/^\/[^\s,:]*$/.test(m.guestPath)) throw new Error(`unsupported guest mount path: ${m.guestPath}`);
  }
  if (mounts.length) args.push(`box.mounts=${mounts.map((m, i) => `vol${i}:${m.guestPath}${m.readOnly ? ':ro' : ''}`).join(',')}`);
  return [...args, ...(config.kernelArgs ?? []), ...extra].join(' ');
}

export function netdevArg(config: VmConfig): string {
  const opts = ['user', 'id=net0', 'restrict=on'];
  if (config.proxyPortFile) {
    // libslirp splits the command like a shell (g_shell_parse_argv) and runs it without one
    const connect = `exec socat -t0.01 - TCP:127.0.0.1:$(cat "$0")`;
    opts.push(optEscape(`guestfwd=tcp:${PROXY_GUEST_ADDR}-cmd:sh -c ${shellQuote(connect)} ${shellQuote(config.proxyPortFile)}`));
  } else if (config.proxyPort) {
    opts.push(`guestfwd=tcp:${PROXY_GUEST_ADDR}-cmd:socat -t0.01 - TCP:127.0.0.1:${config.proxyPort}`);
  }
  for (const p of config.ports ?? []) {
    opts.push(`hostfwd=tcp:${p.hostAddress ?? '127.0.0.1'}:${p.hostPort}-:${p.guestPort}`);
  }
  return opts.join(',');
}

/** QEMU option values escape commas by doubling them. */
const optEscape = (s: string) => s.replaceAll(',', ',,');

export function qemuArgs(folder: VmPaths, config: VmConfig, opts: { incoming?: boolean; extraCmdline?: string[] } = {}) {
  const accel = config.accel === 'tcg' ? ['-accel', `tcg,tb-size=${tcgTbSizeMib(config)}`, '-cpu', TCG_CPU] : ['-accel', config.accel, '-cpu', 'host'];
  const args = [
    '-name',
    `box,process=box-qemu`,
    '-M',
    'microvm,acpi=on,memory-backend=mem',
    ...accel,
    '-smp',
    String(config.vcpus),
    '-m',
    `${config.memoryMib}M`,
    '-object',
    `memory-backend-file,id=mem,size=${config.memoryMib}M,mem-path=${optEscape(config.ramFile ?? folder.ram)},share=${config.ramFile ? 'off' : 'on'}`,
    '-nodefaults',
    '-no-user-config',
    '-display',
    'none',
    '-no-reboot',
    '-chardev',
    `file,id=serial0,path=${optEscape(folder.serialLog)},append=on`,
    '-serial',
    'chardev:serial0',
    '-kernel',
    config.kernel,
    '-initrd',
    config.initrd,
    '-append',
    kernelCmdline(config, opts.extraCmdline),
    '-qmp',
    `unix:${optEscape(folder.qmpSock)},server=on,wait=off`,
    '-qmp',
    `unix:${optEscape(folder.qmpAuxSock)},server=on,wait=off`,
    '-pidfile',
    folder.pidFile,
    '-daemonize',
    '-device',
    'virtio-serial-device,id=vser0',
    '-chardev',
    `socket,id=agent,path=${optEscape(folder.agentSock)},server=on,wait=off`,
    '-device',
    'virtserialport,chardev=agent,name=box.agent',
    '-blockdev',
    `driver=file,filename=${optEscape(folder.disk)},node-name=disk0-file`,
    '-blockdev',
    'driver=qcow2,file=disk0-file,node-name=disk0',
    '-device',
    'virtio-blk-device,drive=disk0,id=blk0',
    '-netdev',
    netdevArg(config),
    '-device',
    'virtio-net-device,netdev=net0',
    '-device',
    'virtio-rng-device',
    // Free page reporting: the guest hands freed memory back, QEMU punches holes in
    // `ram`, so idle RSS and the RAM file (what checkpoints copy) shrink.
    '-device',
    `virtio-balloon-device,free-page-reporting=${config.freePageReporting === false ? 'off' : 'on'}`,
  ];
  const mounts = config.mounts ?? [];
  for (let i = 0; i < Math.max(mounts.length, config.shareSlots ?? 0); i++) {
    const m = mounts[i] ?? { hostPath: folder.emptyShare, readOnly: true };
    args.push(
      '-fsdev',
      `local,id=fs${i},path=${optEscape(m.hostPath)},security_model=none${m.readOnly ? ',readonly=on' : ''}`,
      '-device',
      `virtio-9p-device,fsdev=fs${i},mount_tag=vol${i}`,
    );
  }
  if (opts.incoming) args.push('-incoming', 'defer');
  return args;
}
