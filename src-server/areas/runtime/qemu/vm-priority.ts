/**
 * CPU priority of the boxes' QEMUs, through their scheduling group. A daemonized QEMU leads
 * its own session, and with autogroup scheduling (Linux's default on desktops) a session
 * competes as a whole, whatever its threads' niceness: 40 running guests are 40 sessions,
 * each weighing as much as the service's. The group's own niceness (/proc/<pid>/autogroup)
 * is what puts them behind the service. Without autogroup (or not on Linux) writes fail and
 * nothing changes. Only node: modules here: the entry uses it before loading the service.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The niceness of the process's scheduling group, or undefined where there is none. */
export function groupNice(pid: number): number | undefined {
  try {
    const m = /nice (-?\d+)/.exec(readFileSync(`/proc/${pid}/autogroup`, 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Sets the niceness of the process's scheduling group; false where that cannot be done. */
export function setGroupNice(pid: number, nice: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/autogroup`, String(nice));
    return true;
  } catch {
    return false;
  }
}

/** The QEMUs running for the data dir's boxes (their pid files, checked against /proc: a box QEMU of this data dir). */
function runningVms(dir: string): number[] {
  const dataDir = resolve(dir);
  const root = join(dataDir, 'boxes');
  let ids: string[];
  try {
    ids = readdirSync(root);
  } catch {
    return [];
  }
  const pids: number[] = [];
  for (const id of ids) {
    try {
      const pid = Number(readFileSync(join(root, id, 'qemu.pid'), 'utf8').trim());
      // a clone or a restore keeps the command line of the pool or spare folder it started in
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (pid > 0 && cmdline.includes('process=box-qemu') && cmdline.includes(dataDir)) pids.push(pid);
    } catch {
      /* no VM for this box */
    }
  }
  return pids;
}

/**
 * Issue 28 (restart in under 3 s with 40 boxes running): while a service starts on a data
 * dir whose boxes kept running (a crash, a deliberate "leave them running"), their QEMUs
 * yield the CPU to it: Node loading the service's modules competed with every running
 * TCG guest (10-18 s with 40). Returns the function that gives each its niceness back,
 * called once the API answers; adoption then runs at the boxes' own priority.
 */
export function yieldVmsWhileStarting(dataDir: string, nice = 19): () => number {
  const before = runningVms(dataDir)
    .map((pid) => ({ pid, nice: groupNice(pid) }))
    .filter((v): v is { pid: number; nice: number } => v.nice !== undefined && v.nice < nice && setGroupNice(v.pid, nice));
  return () => before.filter((v) => setGroupNice(v.pid, v.nice)).length;
}
