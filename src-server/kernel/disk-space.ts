import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from './logger.js';

const MiB = 1024 * 1024;
/** Kept on the data dir's disk and given back when it fills, so deletes (SQLite needs room for its journal) still work. */
const RESERVE_BYTES = 8 * MiB;
const RESERVE_FILE = 'space-reserve';

const fmt = (n: number) => (n >= 1024 * MiB ? `${(n / 1024 / MiB).toFixed(1)} GiB` : `${Math.floor(n / MiB)} MiB`);

/** A full disk, as Node (ENOSPC) or SQLite (SQLITE_FULL) reports it. */
export function isDiskFull(err: unknown): boolean {
  for (let e = err as { code?: string; message?: string; cause?: unknown } | undefined, i = 0; e && i < 4; e = e.cause as typeof e, i++) {
    if (e.code === 'ENOSPC' || e.code === 'SQLITE_FULL' || /database or disk is full|no space left on device/i.test(e.message ?? '')) return true;
  }
  return false;
}

/**
 * The data dir's disk (issue 28): free space for GET /v1/status and the UI (a warning when
 * it runs low), the words of the 507 a write gets on a full disk, and a small reserve file
 * released when the disk fills or before anything that frees space runs on an almost full
 * one, re-made once there is room again.
 */
export class DiskSpace {
  private wasLow = false;
  private timer?: NodeJS.Timeout;

  constructor(
    readonly dataDir: string,
    private log: Logger,
    /** Below this many free bytes the status warns (default: 1 GiB, or 5 % of a smaller disk). */
    private lowBytes?: number,
  ) {}

  private get reserve() {
    return path.join(this.dataDir, RESERVE_FILE);
  }

  measure(): { free: number; total: number } {
    const s = fs.statfsSync(this.dataDir);
    return { free: s.bavail * s.bsize, total: s.blocks * s.bsize };
  }

  status() {
    const { free, total } = this.measure();
    const low = free < (this.lowBytes ?? Math.min(1024 * MiB, total * 0.05));
    if (low !== this.wasLow) {
      this.wasLow = low;
      if (low) this.log.warn(`disk low: ${fmt(free)} free of ${fmt(total)} on the disk of the data dir ${this.dataDir}`);
      else this.log.info(`disk space back: ${fmt(free)} free on the disk of the data dir ${this.dataDir}`);
    }
    const warning = low
      ? `The disk of the service's data dir is almost full: ${fmt(free)} free of ${fmt(total)}. Delete boxes, checkpoints, volumes or images to make room.`
      : undefined;
    return { free_bytes: free, total_bytes: total, low, ...(warning ? { warning } : {}) };
  }

  /** At start and every minute: the warning in the log, the reserve re-made when there is room. */
  start() {
    const tick = () => {
      try {
        this.status();
        if (!fs.existsSync(this.reserve) && this.measure().free > RESERVE_BYTES * 4) fs.writeFileSync(this.reserve, Buffer.alloc(RESERVE_BYTES));
      } catch (e) {
        if (isDiskFull(e)) fs.rmSync(this.reserve, { force: true });
      }
    };
    tick();
    this.timer = setInterval(tick, 60_000);
    this.timer.unref();
  }

  stop() {
    clearInterval(this.timer);
  }

  /** Before a delete or terminate: on an almost full disk, the reserve is given back first. */
  beforeFreeing() {
    if (this.measure().free < RESERVE_BYTES * 2) this.release('before an operation that frees space');
  }

  private release(why: string) {
    if (!fs.existsSync(this.reserve)) return;
    fs.rmSync(this.reserve, { force: true });
    this.log.warn(`disk full: released the ${fmt(RESERVE_BYTES)} reserve of the data dir ${this.dataDir} (${why})`);
  }

  /** The 507's message; the reserve is released so the deletes that follow can run. */
  fullMessage(): string {
    this.release('a write found the disk full');
    let free = 0;
    try {
      free = this.measure().free;
    } catch {
      /* unmeasurable: say 0 */
    }
    return `No space left on the disk of the service's data dir (GET /v1/status: data_dir): ${fmt(free)} free; this write needs more. Free at least ${fmt(64 * MiB)} (delete boxes, checkpoints, volumes, files or images: deletes work on a full disk), then retry.`;
  }
}
