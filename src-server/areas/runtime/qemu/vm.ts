/**
 * runtime/qemu/: one QEMU process per box. Launching, attaching to and killing it (this
 * file), its QMP connection (qmp.ts), its command line (vm-config.ts, host.ts: facts about
 * the host; accel.ts: KVM/HVF or TCG), saves and restores (vm-snapshot.ts), checkpoints
 * (checkpoints.ts) and disk layers (layers.ts), 9p volume shares around snapshots
 * (shares.ts), health pings (vm-health.ts) and adopting a VM that outlived the service
 * (vm-adopt.ts).
 */
/**
 * Starting, attaching to and killing box VMs. QEMU runs daemonized (-daemonize,
 * -pidfile) so it outlives the service; a VmHandle is only the service's QMP connection.
 * Contract: a folder has at most one QEMU; launchVm and restoreVm refuse a live one.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadFactor } from '../../../platform/guest/agent-connect.js';
import { hasEnded, readProcStat } from '../../../kernel/util/proc-stat.js';
import { rm } from 'node:fs/promises';
import { type BoxFolder, createOverlay, ensureFolder, exitingPid, livePid, readState, writeState } from '../box-folder.js';
import { qemuLauncher } from '../guest-image/agent-build.js';
import { QEMU_BINARY, qemuVersion } from './host.js';
import { QmpClient } from './qmp.js';
import { setGroupNice } from './vm-priority.js';
import { boxEnv } from '../../../platform/settings.js';
import { qemuArgs, type VmConfig } from './vm-config.js';

export interface VmHandle {
  folder: BoxFolder;
  pid: number;
  qmp: QmpClient;
  config: VmConfig;
  /** Node name of the active disk layer (changes after a live disk snapshot). */
  diskNode: string;
}

/** BOX_QEMU_NICE's default: guests at the service's priority (they yield only while it starts: headless.ts). */
const QEMU_NICE = 0;

/** Runs QEMU with -daemonize: resolves when the daemon is initialised (parent exited 0). */
async function spawnDaemon(args: string[], nice: number): Promise<void> {
  const launcher = await qemuLauncher();
  // BOX_QEMU_NICE where there is no autogroup: a guest's threads inherit the niceness from
  // the start, which a later renice would not reach
  const argv = [...(nice > 0 ? ['nice', '-n', String(nice)] : []), ...(launcher ? [launcher] : []), QEMU_BINARY, ...args];
  await new Promise<void>((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`qemu exited with ${code}: ${stderr.trim()}`));
    });
  });
}

async function removeRuntimeFiles(folder: BoxFolder): Promise<void> {
  await Promise.all([folder.qmpSock, folder.qmpAuxSock, folder.agentSock, folder.pidFile].map((p) => rm(p, { force: true })));
}

/** Starts QEMU for the folder and connects QMP. */
export async function startQemu(folder: BoxFolder, config: VmConfig, opts: { incoming?: boolean; extraCmdline?: string[] } = {}): Promise<VmHandle> {
  if (livePid(folder)) throw new Error(`a VM is already running for ${folder.dir}`);
  await ensureFolder(folder);
  await removeRuntimeFiles(folder);
  const nice = boxEnv().qemuNice ?? QEMU_NICE;
  await spawnDaemon(qemuArgs(folder, config, opts), nice);
  const pid = livePid(folder);
  if (!pid) throw new Error(`qemu started but ${folder.pidFile} names no live process`);
  // with autogroup, its session is its own scheduling group: the group's niceness is what counts (vm-priority.ts)
  if (nice > 0) setGroupNice(pid, nice);
  const qmp = await QmpClient.connect(folder.qmpSock, { timeoutMs: 10_000 });
  return { folder, pid, qmp, config, diskNode: 'disk0' };
}

/**
 * Cold-boots a VM. Creates disk.qcow2 over config.rootfs on first launch (and asks the
 * initramfs to grow the filesystem); drops stale RAM and device state.
 */
export async function launchVm(folder: BoxFolder, config: VmConfig): Promise<VmHandle> {
  await ensureFolder(folder);
  if (livePid(folder)) throw new Error(`a VM is already running for ${folder.dir}`);
  const extra: string[] = [];
  if (!existsSync(folder.disk)) {
    await createOverlay(folder.disk, config.rootfs, config.rootfsFormat ?? 'raw', config.diskGib);
    extra.push('box.growfs=1');
  }
  await rm(folder.devices, { force: true });
  await rm(folder.ram, { force: true });
  const prev = await readState(folder);
  await writeState(folder, {
    ...prev,
    guestFiles: undefined, // the disk alone: files written since the last sync may be gone
    config,
    bootCount: (prev?.bootCount ?? 0) + 1,
    launchedAt: new Date().toISOString(),
    qemuVersion: await qemuVersion(),
  });
  return startQemu(folder, config, { extraCmdline: extra });
}

/**
 * Connects to the QEMU already running for this folder (e.g. after a service restart).
 * The owner monitor takes one client: close any earlier handle of this VM first.
 */
export async function attachVm(folder: BoxFolder): Promise<VmHandle> {
  const pid = livePid(folder);
  if (!pid) throw new Error(`no VM running for ${folder.dir}`);
  const state = await readState(folder);
  if (!state) throw new Error(`no state.json in ${folder.dir}`);
  const qmp = await QmpClient.connect(folder.qmpSock);
  const blocks = await qmp.execute<{ device: string; qdev?: string; inserted?: { 'node-name'?: string } }[]>('query-block');
  const node = blocks.find((b) => b.qdev?.includes('blk0'))?.inserted?.['node-name'] ?? 'disk0';
  return { folder, pid, qmp, config: state.config, diskNode: node };
}

/**
 * Gone, or a zombie whose threads have all ended (proc-stat.ts hasEnded): a daemonized QEMU
 * is not our child, and who reaps it varies. Until its last thread ends, its disk's lock is
 * held and a new QEMU on the same disk fails.
 */
export function exited(pid: number): boolean {
  return hasEnded(readProcStat(pid));
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (exited(pid)) return true;
    await new Promise((r) => setTimeout(r, 2));
  }
  return false;
}

/**
 * Kills the folder's QEMU (SIGKILL) and removes its sockets and pid file. Disk, RAM
 * and state stay; without devices.bin the RAM is not restorable (next start is a boot).
 */
export async function killVm(target: BoxFolder | VmHandle): Promise<void> {
  const folder = 'qmp' in target ? target.folder : target;
  if ('qmp' in target) target.qmp.close();
  // one killed before (by us, or by a crash) may still be exiting, its disk locked
  const pid = livePid(folder) ?? exitingPid(folder);
  if (pid) {
    process.kill(pid, 'SIGKILL');
    // a loaded machine takes longer to tear down a killed guest's memory
    if (!(await waitForExit(pid, 5000 * loadFactor()))) throw new Error(`qemu ${pid} did not exit`);
  }
  await removeRuntimeFiles(folder);
}

/** Asks QEMU to quit and waits for the process to end. */
export async function quitVm(handle: VmHandle, timeoutMs = 5000): Promise<void> {
  await handle.qmp.execute('quit').catch(() => {});
  handle.qmp.close();
  if (!(await waitForExit(handle.pid, timeoutMs))) process.kill(handle.pid, 'SIGKILL');
  await waitForExit(handle.pid, 2000);
  await removeRuntimeFiles(handle.folder);
}

/** Publishes a guest TCP port on the host at run time (not kept across restarts; use config.ports). */
export async function addHostForward(handle: VmHandle, hostPort: number, guestPort: number, hostAddress = '127.0.0.1') {
  const out = await handle.qmp.execute<string>('human-monitor-command', {
    'command-line': `hostfwd_add net0 tcp:${hostAddress}:${hostPort}-:${guestPort}`,
  });
  if (out.trim()) throw new Error(`hostfwd_add: ${out.trim()}`);
}
export async function removeHostForward(handle: VmHandle, hostPort: number, hostAddress = '127.0.0.1') {
  await handle.qmp.execute('human-monitor-command', {
    'command-line': `hostfwd_remove net0 tcp:${hostAddress}:${hostPort}`,
  });
}
