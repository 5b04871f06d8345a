/**
 * Save/restore and checkpoints. Guest RAM lives in `ram` (memory-backend-file,
 * share=on); with the x-ignore-shared capability a migration writes only device state
 * (devices.bin, tens of KiB), and a restore maps the same RAM file again.
 * A template clone maps the template's RAM file share=off instead: QEMU sends its whole
 * RAM, and box-ramdelta (agent-build.ts) keeps only the pages that differ from the
 * template, so devices.bin holds what the box changed (a few MiB, not the ~80 MiB the
 * template's memory holds) and a restore leaves every other page mapped from the
 * template file, still shared with the other clones.
 * Invariant: devices.bin matches `ram` only while no VM runs on them; restoreVm deletes
 * it once the VM runs again, so a stale pair can never be restored.
 * A checkpoint directory holds `ram`, `devices.bin`, `disk.qcow2` (frozen) and meta.json.
 */
import { execFile } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { copyFile, link, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { BoxFolder, type BoxState, createOverlay, ensureFolder, hasSavedState, livePid, readState, writeState } from './box-folder.js';
import type { AgentClient } from '../guest/agent-client.js';
import { mountShares, unmountShares } from './shares.js';
import { shellQuote } from '../util/shell-quote.js';
import { ensureRamDelta } from './agent-build.js';
import { type VmHandle, quitVm, startQemu } from './vm.js';
import type { VmConfig } from './vm-config.js';

const execFileP = promisify(execFile);

async function setIgnoreShared(handle: VmHandle): Promise<void> {
  await handle.qmp.execute('migrate-set-capabilities', {
    capabilities: [{ capability: 'x-ignore-shared', state: true }],
  });
}

async function waitMigration(handle: VmHandle, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const info = await handle.qmp.execute<{ status?: string; 'error-desc'?: string }>('query-migrate');
    if (info.status === 'completed') return;
    if (info.status === 'failed' || info.status === 'cancelled') {
      throw new Error(`migration ${info.status}: ${info['error-desc'] ?? ''}`);
    }
    if (Date.now() > deadline) throw new Error(`migration did not finish in ${timeoutMs} ms (${info.status})`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

/**
 * Stops the guest and writes its device state to `path` (RAM stays in the ram file).
 * On failure the guest runs again and no partial file is left.
 */
async function saveDevices(handle: VmHandle, path: string): Promise<void> {
  await handle.qmp.execute('stop');
  await migrateStopped(handle, path);
}

/** saveDevices of a VM already stopped; on failure it runs again. */
async function migrateStopped(handle: VmHandle, path: string): Promise<void> {
  const tmp = `${path}.tmp`;
  const template = handle.config.ramFile;
  const filter = template ? await ensureRamDelta() : undefined;
  try {
    await setIgnoreShared(handle);
    await handle.qmp.execute('migrate-set-parameters', { 'max-bandwidth': 8 * 1024 ** 3 });
    const sink = filter && template ? `${shellQuote(filter)} filter ${shellQuote(template)} mem ${shellQuote(tmp)}` : `cat > ${shellQuote(tmp)}`;
    await handle.qmp.execute('migrate', { uri: `exec:${sink}` });
    await waitMigration(handle, 60_000);
    // the filter renames its output into place once it has written the whole stream
    if (filter) await waitForFile(tmp, 30_000);
    await rename(tmp, path);
  } catch (e) {
    await rm(tmp, { force: true });
    await rm(`${tmp}.part`, { force: true });
    await handle.qmp.execute('cont').catch(() => {});
    throw e;
  }
}

/** Waits for box-ramdelta's rename of `${path}.part` to `path`; it removes the part file when it fails. */
async function waitForFile(path: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(path)) {
    if (!existsSync(`${path}.part`) && !existsSync(path)) throw new Error(`box-ramdelta did not write the saved state ${path}`);
    if (Date.now() > deadline) throw new Error(`the saved state did not appear at ${path}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

interface SaveResult {
  ms: number;
}

interface SnapshotOptions {
  /** Connected agent: needed when the VM has shared folders (unmounted before saving). */
  agent?: AgentClient;
  /** checkpointVm: the checkpoint is complete (before the VM is restored). */
  onSaved?: () => void;
}

async function prepareShares(handle: VmHandle, opts: SnapshotOptions): Promise<void> {
  if (!handle.config.mounts?.length) return;
  if (!opts.agent) throw new Error('a VM with shared folders needs its agent to save (to unmount them)');
  await unmountShares(opts.agent, handle.config);
}

/**
 * Pause/sleep: device state to devices.bin, then QEMU quits. The folder is restorable
 * after. waitForAgent(..., {afterRestore}) mounts the shared folders again.
 */
export async function saveAndStop(handle: VmHandle, opts: SnapshotOptions = {}): Promise<SaveResult> {
  await prepareShares(handle, opts);
  const t0 = performance.now();
  await saveDevices(handle, handle.folder.devices);
  await quitVm(handle);
  const state = await readState(handle.folder);
  if (state) await writeState(handle.folder, { ...state, savedAt: new Date().toISOString() });
  return { ms: performance.now() - t0 };
}

/**
 * Settings a restore or clone may change: user-net options (published ports, the proxy),
 * not guest devices, so the saved device state still fits; and the hostname a later cold
 * boot passes to the kernel (a fork's own; a restored guest gets it through the agent).
 */
type NetworkOverrides = Partial<Pick<VmConfig, 'ports' | 'proxyPort' | 'hostname'>>;

/**
 * Starts QEMU with -incoming defer on the saved ram + devices.bin, using the machine
 * shape from state.json, and resolves once the guest runs again.
 */
export async function restoreVm(folder: BoxFolder, network: NetworkOverrides = {}): Promise<VmHandle> {
  const saved = await readState(folder);
  if (!saved || !hasSavedState(folder)) throw new Error(`nothing to restore in ${folder.dir}`);
  const state = { ...saved, config: { ...saved.config, ...network } };
  const handle = await startQemu(folder, state.config, { incoming: true });
  try {
    await setIgnoreShared(handle);
    await handle.qmp.execute('migrate-incoming', { uri: `exec:cat ${shellQuote(folder.devices)}` });
    const deadline = Date.now() + 30_000;
    for (;;) {
      const { status } = await handle.qmp.execute<{ status: string }>('query-status');
      if (status === 'running') break;
      if (status === 'paused' || status === 'postmigrate') {
        await handle.qmp.execute('cont');
        continue;
      }
      if (status !== 'inmigrate' && status !== 'restore-vm') throw new Error(`restore ended in state ${status}`);
      if (Date.now() > deadline) throw new Error('restore timed out');
      await new Promise((r) => setTimeout(r, 2));
    }
  } catch (e) {
    await quitVm(handle).catch(() => {});
    throw e;
  }
  await rm(folder.devices, { force: true });
  await writeState(folder, { ...state, restoredAt: new Date().toISOString() });
  return handle;
}

/** Copies a mostly-empty file keeping its holes (RAM files are sparse). */
async function copySparse(src: string, dst: string): Promise<void> {
  await rm(dst, { force: true });
  await execFileP('cp', ['--sparse=always', '--reflink=auto', src, dst]);
}

/**
 * Device state files are written once (temp file + rename) and only ever unlinked, so a
 * checkpoint and its clones share one inode. It matters for clones of templates, whose
 * saved state carries the pages they changed: no copy of it is made.
 */
async function linkOrCopy(src: string, dst: string): Promise<void> {
  await rm(dst, { force: true });
  await link(src, dst).catch(() => copyFile(src, dst));
}

interface CheckpointMeta {
  config: VmConfig;
  createdAt: string;
  source: string;
  /** The source's guest-setup files at the checkpoint (BoxState.guestFiles). */
  guestFiles?: Record<string, string>;
}

async function writeMeta(dir: string, state: BoxState, source: string): Promise<void> {
  const meta: CheckpointMeta = { config: state.config, createdAt: new Date().toISOString(), source, guestFiles: state.guestFiles };
  await writeFile(join(dir, 'meta.json'), JSON.stringify(meta, null, 2));
}

/**
 * Checkpoint of a saved (not running) box: copies ram + devices.bin and freezes the disk
 * by moving disk.qcow2 into the checkpoint and putting a fresh overlay on top of it.
 * Deleting a checkpoint later needs its dependents rebased (qemu-img rebase/commit).
 */
export async function checkpointFolder(folder: BoxFolder, dir: string): Promise<void> {
  if (livePid(folder)) throw new Error('checkpointFolder needs a stopped box; use checkpointVm');
  const state = await readState(folder);
  if (!state || !hasSavedState(folder)) throw new Error(`no saved state in ${folder.dir}`);
  await mkdir(dir, { recursive: true });
  // A clone has no ram file of its own: the pages it changed are in devices.bin (share=off
  // memory is migrated, box-ramdelta drops the template's pages) over the template's file,
  // which config.ramFile keeps naming.
  if (existsSync(folder.ram)) await copySparse(folder.ram, join(dir, 'ram'));
  await linkOrCopy(folder.devices, join(dir, 'devices.bin'));
  await rename(folder.disk, join(dir, 'disk.qcow2'));
  await createOverlay(folder.disk, join(dir, 'disk.qcow2'), 'qcow2');
  await writeMeta(dir, state, folder.dir);
}

/**
 * Checkpoint of a running VM: save, checkpointFolder, restore. The handle is updated in
 * place (new pid and QMP connection); the agent connection drops with the old QEMU, so
 * reconnect with waitForAgent(..., {afterRestore: true}).
 * A live disk swap (blockdev-snapshot under the running VM) is avoided on purpose: on
 * QEMU 7.2 it reopens the old layer read-only by file name, and a second one cannot
 * re-take the image locks on `cont`.
 */
export async function checkpointVm(handle: VmHandle, dir: string, opts: SnapshotOptions = {}): Promise<{ pausedMs: number }> {
  const t0 = performance.now();
  await saveAndStop(handle, opts);
  try {
    await checkpointFolder(handle.folder, dir);
    opts.onSaved?.();
  } finally {
    const fresh = await restoreVm(handle.folder);
    Object.assign(handle, { pid: fresh.pid, qmp: fresh.qmp, diskNode: fresh.diskNode });
  }
  return { pausedMs: performance.now() - t0 };
}

/** Overlays up to this many allocated bytes are copied by checkpointInPlace (beyond: checkpointVm). */
const IN_PLACE_DISK_LIMIT = 256 * 1024 ** 2;

/** Whether checkpointInPlace can take this VM: a template clone (its RAM is the template's file, share=off) with a small overlay. */
export function canCheckpointInPlace(handle: VmHandle): boolean {
  if (!handle.config.ramFile || existsSync(handle.folder.ram)) return false;
  try {
    return statSync(handle.folder.disk).blocks * 512 <= IN_PLACE_DISK_LIMIT;
  } catch {
    return false;
  }
}

/**
 * Checkpoint of a running template clone without ending its QEMU: stop, the delta save
 * into the checkpoint, a copy of the overlay (once the migration completes QEMU has
 * flushed and released its images, so the file is a clean qcow2), then `cont` (QEMU takes
 * its images back). The source keeps its process, its agent connection and its
 * translated code: under TCG a restarted QEMU spends ~100 ms of CPU translating again on
 * the next exec. The copy costs what the box wrote to its disk (canCheckpointInPlace
 * bounds it); the checkpoint's disk.qcow2 is a leaf over the same template layer.
 */
export async function checkpointInPlace(handle: VmHandle, dir: string, opts: SnapshotOptions = {}): Promise<{ pausedMs: number }> {
  await prepareShares(handle, opts);
  const t0 = performance.now();
  await mkdir(dir, { recursive: true });
  await handle.qmp.execute('stop');
  try {
    await migrateStopped(handle, join(dir, 'devices.bin'));
    try {
      await copySparse(handle.folder.disk, join(dir, 'disk.qcow2'));
      await writeMeta(dir, (await readState(handle.folder)) ?? { config: handle.config, bootCount: 0 }, handle.folder.dir);
    } catch (e) {
      await rm(dir, { recursive: true, force: true });
      throw e;
    }
  } finally {
    await handle.qmp.execute('cont').catch(() => {});
    if (handle.config.mounts?.length && opts.agent) await mountShares(opts.agent, handle.config);
  }
  opts.onSaved?.();
  return { pausedMs: performance.now() - t0 };
}

/**
 * Makes `dst` a restorable box folder from a checkpoint dir: sparse copy of ram, device
 * state, and a new overlay over the frozen disk. Restore it with restoreVm(dst). The
 * clone publishes no ports unless `network.ports` says so (the source's are taken).
 */
export async function cloneFolder(checkpointDir: string, dst: BoxFolder, network: NetworkOverrides = {}): Promise<void> {
  const metaPath = join(checkpointDir, 'meta.json');
  if (!existsSync(metaPath)) throw new Error(`${checkpointDir} is not a checkpoint (no meta.json)`);
  if (livePid(dst)) throw new Error(`a VM is running for ${dst.dir}`);
  const meta = JSON.parse(await readFile(metaPath, 'utf8')) as CheckpointMeta;
  await ensureFolder(dst);
  if (existsSync(join(checkpointDir, 'ram'))) await copySparse(join(checkpointDir, 'ram'), dst.ram);
  await linkOrCopy(join(checkpointDir, 'devices.bin'), dst.devices);
  await createOverlay(dst.disk, join(checkpointDir, 'disk.qcow2'), 'qcow2');
  const config = { ...meta.config, ports: [], ...network };
  await writeState(dst, { config, bootCount: 0, clonedFrom: resolve(checkpointDir), guestFiles: meta.guestFiles });
}
