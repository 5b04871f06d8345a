/**
 * Checkpoints: a directory holding `ram` (a VM with its own RAM file), `devices.bin` (device
 * state, and for a template clone the pages it changed), `disk.qcow2` and meta.json, taken
 * from a saved folder, from a running VM (save, checkpoint, restore) or in place (a running
 * template clone keeps its QEMU); and box folders cloned from them.
 */
import { execFile } from 'node:child_process';
import { constants, existsSync, statSync } from 'node:fs';
import { copyFile, link, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { BoxFolder, type BoxState, createOverlay, ensureFolder, hasSavedState, livePid, readState, writeState } from '../box-folder.js';
import { mountShares } from './shares.js';
import type { VmConfig } from './vm-config.js';
import { type NetworkOverrides, type SnapshotOptions, migrateStopped, prepareShares, restoreVm, saveAndStop } from './vm-snapshot.js';
import type { VmHandle } from './vm.js';

const execFileP = promisify(execFile);

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

/** A clone from a checkpoint copies a disk up to this size instead of layering an overlay on it. */
const COPY_DISK_LIMIT = 64 * 1024 ** 2;

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
      await copyFile(handle.folder.disk, join(dir, 'disk.qcow2'), constants.COPYFILE_FICLONE); // reflink where the filesystem has it
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
  // A small leaf (an in-place checkpoint's overlay copy) is copied: no qemu-img process on
  // a fork's path, and the copy builds on the same template layer (backing paths are absolute).
  const disk = join(checkpointDir, 'disk.qcow2');
  if (statSync(disk).blocks * 512 <= COPY_DISK_LIMIT) await copyFile(disk, dst.disk, constants.COPYFILE_FICLONE);
  else await createOverlay(dst.disk, disk, 'qcow2');
  const config = { ...meta.config, ports: [], ...network };
  await writeState(dst, { config, bootCount: 0, clonedFrom: resolve(checkpointDir), guestFiles: meta.guestFiles });
}
