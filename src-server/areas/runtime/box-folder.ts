/**
 * The per-box folder `<dataDir>/boxes/<box_id>/` and the named files in it. State is
 * derived from these files and the live process: a box "has a VM" when qemu.pid names a
 * live QEMU whose command line mentions this folder's qmp.sock (or, for a warm-pool
 * clone renamed into place, its launchDir's); it "can be restored"
 * when ram + devices.bin + state.json exist.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { hasEnded, readProcStat } from '../../kernel/util/proc-stat.js';
import { QmpClient } from './qemu/qmp.js';
import type { VmConfig } from './qemu/vm-config.js';

const execFileP = promisify(execFile);

/** Linux limits unix socket paths to 107 bytes. */
const MAX_SOCKET_PATH = 107;

export class BoxFolder {
  readonly dir: string;
  constructor(dir: string) {
    this.dir = resolve(dir);
  }
  /** The owner's QMP monitor (one client at a time: the service's VmHandle). */
  get qmpSock() {
    return join(this.dir, 'qmp.sock');
  }
  /** A second QMP monitor for probes and tools while the owner is connected. */
  get qmpAuxSock() {
    return join(this.dir, 'qmp-aux.sock');
  }
  get agentSock() {
    return join(this.dir, 'agent.sock');
  }
  get pidFile() {
    return join(this.dir, 'qemu.pid');
  }
  get serialLog() {
    return join(this.dir, 'serial.log');
  }
  get disk() {
    return join(this.dir, 'disk.qcow2');
  }
  get ram() {
    return join(this.dir, 'ram');
  }
  get devices() {
    return join(this.dir, 'devices.bin');
  }
  get checkpoints() {
    return join(this.dir, 'checkpoints');
  }
  /** What an unused 9p slot exports (vm-config.ts, shareSlots): always empty. */
  get emptyShare() {
    return join(this.dir, 'empty-share');
  }
  get stateFile() {
    return join(this.dir, 'state.json');
  }
  checkpoint(name: string) {
    return join(this.checkpoints, name);
  }
}

export function boxFolder(dataDir: string, boxId: string): BoxFolder {
  if (!/^[A-Za-z0-9_-]+$/.test(boxId)) throw new Error(`invalid box id: ${boxId}`);
  return new BoxFolder(join(dataDir, 'boxes', boxId));
}

/** compose: device state + the pages read from QEMU's memory; migration: QEMU's stream (+ box-ramdelta filter). */
export type SaveMethod = 'compose' | 'migration';

/** What the runtime knows about a box's VM: the launch config, so restores match it. */
export interface BoxState {
  config: VmConfig;
  /** Incremented on every cold boot (not on restore). */
  bootCount: number;
  launchedAt?: string;
  savedAt?: string;
  /** How the last save was written (vm-snapshot.ts migrateStopped). */
  savedWith?: SaveMethod;
  restoredAt?: string;
  /**
   * A restore of the saved state began (written before the guest runs, cleared by the next
   * save): found set at a restore, the same state may have run before (the service died
   * mid-restore), so that restore reseeds the guest RNG.
   */
  restoreStartedAt?: string;
  qemuVersion?: string;
  /** Set when the folder was cloned from a checkpoint or a template. */
  clonedFrom?: string;
  /** The template the box's disk (and, until a cold boot, its RAM) builds on. */
  template?: string;
  /**
   * Where the running QEMU was started when that was not this folder (a warm-pool clone,
   * renamed into place): its command line names that folder's sockets.
   */
  launchDir?: string;
  /** The proxy port file the running QEMU reads (warm-pool clones); removed with the box. */
  portFile?: string;
  /** Guest-setup files last written into this VM: path → sha256 (guest-files.ts). */
  guestFiles?: Record<string, string>;
}

export async function ensureFolder(folder: BoxFolder): Promise<void> {
  await mkdir(folder.checkpoints, { recursive: true });
  await mkdir(folder.emptyShare, { recursive: true });
  for (const p of [folder.qmpSock, folder.qmpAuxSock, folder.agentSock]) {
    if (Buffer.byteLength(p) > MAX_SOCKET_PATH) {
      throw new Error(`socket path too long for a unix socket (${Buffer.byteLength(p)} > ${MAX_SOCKET_PATH}): ${p}`);
    }
  }
}

export async function readState(folder: BoxFolder): Promise<BoxState | undefined> {
  try {
    return JSON.parse(await readFile(folder.stateFile, 'utf8')) as BoxState;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

export async function writeState(folder: BoxFolder, state: BoxState): Promise<void> {
  const tmp = `${folder.stateFile}.tmp`;
  await writeFile(tmp, JSON.stringify(state, null, 2));
  await rename(tmp, folder.stateFile);
}

/**
 * Creates (or replaces) disk.qcow2 as an overlay over `backing` (raw base or frozen qcow2).
 * lazy_refcounts: a cluster allocation does not flush refcount blocks ahead of the L2
 * table (a host fdatasync each: 20-80 ms per first write to a region under TCG, which a
 * fresh clone's every first write is); after a crash QEMU repairs the refcounts on the
 * next read-write open (the image is marked dirty), and guest data is unaffected.
 */
export async function createOverlay(path: string, backing: string, backingFormat: 'raw' | 'qcow2', sizeGib?: number) {
  await rm(path, { force: true });
  const args = ['create', '-q', '-f', 'qcow2', '-o', 'lazy_refcounts=on', '-F', backingFormat, '-b', resolve(backing), path];
  if (sizeGib) args.push(`${sizeGib}G`);
  await execFileP('qemu-img', args);
}

function readPid(folder: BoxFolder): number | undefined {
  try {
    const pid = Number(readFileSync(folder.pidFile, 'utf8').trim());
    return pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** The pid of this folder's QEMU if it is running (pid file + /proc/<pid>/cmdline check). */
export function livePid(folder: BoxFolder): number | undefined {
  const pid = readPid(folder);
  if (!pid) return undefined;
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    if (cmdline.includes(folder.qmpSock)) return pid;
    const launchDir = (JSON.parse(readFileSync(folder.stateFile, 'utf8')) as BoxState).launchDir;
    return launchDir && cmdline.includes(join(launchDir, 'qmp.sock')) ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The folder's QEMU while it is exiting: its main thread a zombie (its command line already
 * empty, so livePid no longer knows it), other threads still tearing it down with the disk's
 * lock held (proc-stat.ts hasEnded). Waiting for it is safe even if the pid was reused: it is ending.
 */
export function exitingPid(folder: BoxFolder): number | undefined {
  const pid = readPid(folder);
  const st = pid ? readProcStat(pid) : undefined;
  return st && st.state === 'Z' && !hasEnded(st) ? pid : undefined;
}

export function isAlive(folder: BoxFolder): boolean {
  return livePid(folder) !== undefined;
}

/** Alive and answering QMP: resolves to the run state (e.g. "running", "paused"). */
export async function probeQmp(folder: BoxFolder, timeoutMs = 2000): Promise<string | undefined> {
  if (!isAlive(folder)) return undefined;
  let qmp: QmpClient | undefined;
  try {
    qmp = await QmpClient.connect(folder.qmpAuxSock, { timeoutMs });
    const s = await qmp.execute<{ status: string }>('query-status', undefined, timeoutMs);
    return s.status;
  } catch {
    return undefined;
  } finally {
    qmp?.close();
  }
}

/** RAM (own file, or the template's for a clone: config.ramFile), device state and state.json. */
export function hasSavedState(folder: BoxFolder): boolean {
  if (!existsSync(folder.devices) || !existsSync(folder.stateFile)) return false;
  if (existsSync(folder.ram)) return true;
  try {
    const ramFile = (JSON.parse(readFileSync(folder.stateFile, 'utf8')) as BoxState).config.ramFile;
    return !!ramFile && existsSync(ramFile);
  } catch {
    return false;
  }
}
