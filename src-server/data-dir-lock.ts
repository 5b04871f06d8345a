import fs from 'node:fs';
import path from 'node:path';
import { readProcStat } from './kernel/util/proc-stat.js';

/**
 * One service per data dir. Two on the same dir (a second `npm start`, the desktop app and
 * a headless service given the same BOX_DATA_DIR) would both adopt the same VMs, fire every
 * cron job twice and race on templates and spares. The lock is `<dataDir>/service.lock`,
 * created exclusively, naming its owner's pid and that process's start time; a lock whose
 * owner is gone (a crash, kill -9) or whose pid now belongs to another process is taken
 * over. The same process may start again on its dir (a restart in place, tests).
 */
const LOCK_FILE = 'service.lock';

interface Owner {
  pid: number;
  /** The owner's start time in clock ticks since boot (/proc/<pid>/stat), where there is /proc. */
  start: string | null;
  url?: string;
}

export const startTimeOf = (pid: number): string | null => readProcStat(pid)?.startTicks ?? null;

/** Whether the process `o` names still runs: its pid lives and, where its start time was recorded, started then. */
export function alive(o: { pid: number; start: string | null }): boolean {
  try {
    process.kill(o.pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  // the pid lives: still the same process unless its start time says otherwise
  const now = startTimeOf(o.pid);
  return o.start === null || now === null || now === o.start;
}

function readOwner(file: string): Owner | null {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as Owner;
  } catch {
    return null;
  }
}

/** Takes the data dir's lock, or throws an error naming the service that holds it. */
export function lockDataDir(dataDir: string): { setUrl(url: string): void; release(): void } {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, LOCK_FILE);
  const me: Owner = { pid: process.pid, start: startTimeOf(process.pid) };
  for (let attempt = 0; ; attempt++) {
    try {
      fs.writeFileSync(file, JSON.stringify(me), { flag: 'wx' });
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 3) throw e;
      // An empty or half-written file: its writer may be a moment from finishing; read again.
      let owner = readOwner(file);
      if (!owner) {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
        owner = readOwner(file);
      }
      if (owner && owner.pid !== process.pid && alive(owner)) {
        throw new Error(
          `Another Box service (pid ${owner.pid}${owner.url ? `, ${owner.url}` : ''}) is already using the data dir ${dataDir}. ` +
            'Stop it first, or give this one its own --data-dir (BOX_DATA_DIR).',
          { cause: e },
        );
      }
      fs.rmSync(file, { force: true });
    }
  }
  return {
    setUrl(url) {
      fs.writeFileSync(file, JSON.stringify({ ...me, url }));
    },
    release() {
      const o = readOwner(file);
      if (o?.pid === me.pid && o.start === me.start) fs.rmSync(file, { force: true });
    },
  };
}
