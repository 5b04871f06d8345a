/** Helpers of bench/runtime.ts: statistics, the bare-boot baseline, QEMU memory. */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { AgentClient } from '../src-server/guest/agent-client.js';
import { boxFolder, createOverlay } from '../src-server/runtime/box-folder.js';
import { QEMU_BINARY, hostTscKhz } from '../src-server/runtime/host.js';
import { QemuBoxRuntime } from '../src-server/runtime/qemu-box-runtime.js';
import { qemuArgs } from '../src-server/runtime/vm-config.js';

export const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]!;
export const med = (xs: number[]) => pct(xs, 50);
export const r1 = (x: number) => Math.round(x * 10) / 10;
export const r3 = (x: number) => Math.round(x * 1000) / 1000;

const runtimes: Record<string, QemuBoxRuntime> = {};

/**
 * Baseline: QEMU started directly (no service, no daemonize) with the same kernel, initrd,
 * disk and machine shape as a box, until the agent's HELLO.
 */
export async function bareBoot(dataDir: string, i: number): Promise<number> {
  const runtime = (runtimes[dataDir] ??= new QemuBoxRuntime(dataDir));
  const image = await runtime.image();
  const accel = await runtime.accelerator();
  const folder = boxFolder(dataDir, `bare${i}`);
  await mkdir(folder.dir, { recursive: true });
  await createOverlay(folder.disk, image.rootfs, 'raw', 4);
  const config = {
    kernel: image.kernel,
    initrd: image.initrd,
    rootfs: image.rootfs,
    memoryMib: 512,
    vcpus: 1,
    diskGib: 4,
    accel,
    tscKhz: hostTscKhz(),
    hostname: 'bare',
  };
  const args = qemuArgs(folder, config).filter((a) => a !== '-daemonize');
  const t = performance.now();
  const child = spawn(QEMU_BINARY, args, { stdio: 'ignore' });
  const agent = await AgentClient.connect(folder.agentSock, { timeoutMs: 120_000, helloRetryMs: 50 });
  const ms = performance.now() - t;
  agent.close();
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  await rm(folder.dir, { recursive: true, force: true });
  return ms;
}

/** A guest shell loop that runs `cmd` n times and prints the mean nanoseconds per run. */
export const execLoopScript = (cmd: string, n: number) =>
  `i=0; s=$(date +%s%N); while [ $i -lt ${n} ]; do ${cmd}; i=$((i+1)); done; e=$(date +%s%N); echo $(( (e-s)/${n} ))`;

/** QEMU processes whose command line names a path under dataDir (this service's VMs), and `also` if given. */
export function qemuPids(dataDir: string, also = ''): number[] {
  const pids: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8');
      if (cmd.includes('qemu-system') && cmd.includes(dataDir) && cmd.includes(also)) pids.push(Number(d));
    } catch {
      // exited meanwhile
    }
  }
  return pids;
}

export function sumPssMiB(pids: number[]): number {
  let kib = 0;
  for (const pid of pids) {
    try {
      kib += Number(/^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))![1]);
    } catch {
      // exited meanwhile
    }
  }
  return kib / 1024;
}

/** User + system CPU time of a process (all threads), ms (clock ticks of 10 ms). */
export function qemuCpuMs(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
}
