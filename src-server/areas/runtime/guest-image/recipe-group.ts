/**
 * A recipe script of the guest image (bash, then debootstrap, dpkg, mksquashfs...) runs in
 * a process group of its own, named in a file beside its output, so that no part of it
 * outlives the service that started it:
 * - when the service's process exits (a stop, the desktop app quitting), the whole group is
 *   killed on the way out;
 * - after a crash (kill -9 of the service), the next build of that part kills what is left
 *   of the old group before it clears the directory both would write to.
 * Without this, a build cut short by a stop went on writing into the image cache, where the
 * next start's build of the same part was clearing and writing the same directory.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { liveGroupMembers, readProcStat } from '../../../kernel/util/proc-stat.js';

interface GroupRecord {
  pgid: number;
  /** Its leader's start time: with the pid, names that one process. */
  start: string;
}

/** Groups this process started and is still running, with their record files. */
const running = new Map<number, string>();
let exitHook = false;

/** Whether any process of the group still runs (its zombies do not count). */
const groupAlive = (pgid: number) => liveGroupMembers(pgid).length > 0;

function killGroup(pgid: number): void {
  if (!(pgid > 1)) return; // kill(-1) would signal every process
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // already gone
  }
}

function endAll(): void {
  for (const [pgid, record] of running) {
    killGroup(pgid);
    rmSync(record, { force: true });
  }
}

/**
 * A group of its own no longer gets the terminal's Ctrl+C. A process that handles its stop
 * signals (the service) exits through process.exit, where the exit hook ends the builds; one
 * that does not (`npm run guest:build`) would die of the signal without running it: for
 * those the builds end here and the signal is raised again, to end the process as it would have.
 */
function onStopSignal(sig: NodeJS.Signals): void {
  if (process.listenerCount(sig) > 1) return;
  endAll();
  process.removeListener(sig, onStopSignal);
  process.kill(process.pid, sig);
}

/** Spawns `cmd` as the leader of a new process group and records the group in `recordFile`. */
export function spawnRecipe(cmd: string, args: string[], opts: SpawnOptions, recordFile: string): ChildProcess {
  if (!exitHook) {
    exitHook = true;
    process.on('exit', endAll);
    for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, onStopSignal);
  }
  const child = spawn(cmd, args, { ...opts, detached: true });
  const pgid = child.pid;
  if (pgid === undefined) return child; // failed to spawn: its 'error' event says why
  running.set(pgid, recordFile);
  child.once('exit', () => {
    running.delete(pgid);
    killGroup(pgid); // what it started in the background ends with it
    void rm(recordFile, { force: true });
  });
  const record: GroupRecord = { pgid, start: readProcStat(pgid)?.startTicks ?? '' };
  writeFileSync(recordFile, JSON.stringify(record)); // before any event of the child can run
  return child;
}

/**
 * Kills what is left of a recipe group a crashed service recorded in `recordFile`, and waits
 * (up to `timeoutMs`) until it is gone. True when there was one.
 */
export async function killLeftoverRecipe(recordFile: string, timeoutMs = 10_000): Promise<boolean> {
  let rec: GroupRecord;
  try {
    rec = JSON.parse(readFileSync(recordFile, 'utf8')) as GroupRecord;
  } catch {
    return false; // none recorded, or a half-written record (its group was never started)
  }
  if (!Number.isInteger(rec.pgid) || rec.pgid <= 1 || running.has(rec.pgid)) return false;
  // A live leader with another start time is an unrelated process that got the pid. A group
  // without its leader is still the old one: Linux gives no new process a pid that is still
  // some group's id.
  const leader = readProcStat(rec.pgid);
  const ours = leader ? leader.startTicks === rec.start : true;
  let found = false;
  if (ours && groupAlive(rec.pgid)) {
    found = true;
    killGroup(rec.pgid);
    const deadline = Date.now() + timeoutMs;
    while (groupAlive(rec.pgid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  }
  await rm(recordFile, { force: true });
  return found;
}
