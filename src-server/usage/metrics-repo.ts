import { METRIC_RANGES, RANGE_SECONDS, type MetricPoint, type MetricRange } from '../contract/usage.js';
import type { Db } from '../db/connection.js';

const RAW_KEEP_MS = 24 * 3600_000;
const ROLLUP_KEEP_MS = 7 * 86400_000;
const ROLLUP_MS = 5 * 60_000;

export interface Sample {
  boxId: string;
  at: number;
  cpu: number | null;
  mem: number | null;
  disk: number | null;
}

/**
 * Box metrics: raw samples (24 h) and 5-minute rollups (7 days). Each sample is written
 * to both at once, so there is no separate rollup job; pruning drops what is past its keep.
 */
export class MetricsRepo {
  constructor(private db: Db) {}

  async add(s: Sample): Promise<void> {
    await this.db.run(
      `INSERT INTO box_metrics (box_id, at, cpu_used_vcpu, memory_used_bytes, disk_used_bytes) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (box_id, at) DO UPDATE SET cpu_used_vcpu = excluded.cpu_used_vcpu, memory_used_bytes = excluded.memory_used_bytes, disk_used_bytes = excluded.disk_used_bytes`,
      [s.boxId, s.at, s.cpu, s.mem, s.disk],
    );
    const n = (v: number | null) => (v === null ? 0 : 1);
    await this.db.run(
      `INSERT INTO box_metrics_5m (box_id, bucket, cpu_sum, cpu_n, mem_sum, mem_n, disk_sum, disk_n) VALUES (@box, @bucket, @cpu, @cn, @mem, @mn, @disk, @dn)
         ON CONFLICT (box_id, bucket) DO UPDATE SET cpu_sum = box_metrics_5m.cpu_sum + @cpu, cpu_n = box_metrics_5m.cpu_n + @cn, mem_sum = box_metrics_5m.mem_sum + @mem,
           mem_n = box_metrics_5m.mem_n + @mn, disk_sum = box_metrics_5m.disk_sum + @disk, disk_n = box_metrics_5m.disk_n + @dn`,
      {
        box: s.boxId,
        bucket: Math.floor(s.at / ROLLUP_MS) * ROLLUP_MS,
        cpu: s.cpu ?? 0,
        cn: n(s.cpu),
        mem: s.mem ?? 0,
        mn: n(s.mem),
        disk: s.disk ?? 0,
        dn: n(s.disk),
      },
    );
  }

  async prune(now: number): Promise<void> {
    await this.db.run('DELETE FROM box_metrics WHERE at < ?', [now - RAW_KEEP_MS]);
    await this.db.run('DELETE FROM box_metrics_5m WHERE bucket < ?', [now - ROLLUP_KEEP_MS]);
  }

  /** A box's raw samples from `fromMs` to `toMs` (inclusive), oldest first (24 h are kept). */
  async samples(boxId: string, fromMs: number, toMs: number): Promise<Sample[]> {
    const rows = await this.db.all<Omit<Sample, 'boxId'>>(
      'SELECT at, cpu_used_vcpu AS cpu, memory_used_bytes AS mem, disk_used_bytes AS disk FROM box_metrics WHERE box_id = ? AND at >= ? AND at <= ? ORDER BY at',
      [boxId, fromMs, toMs],
    );
    return rows.map((r) => ({ boxId, ...r }));
  }

  /**
   * Averages over buckets of the range's point width, aligned to the epoch so points stay
   * put between refreshes. 1h and 6h read raw samples; 24h and 7d read the rollups.
   */
  async series(boxId: string, range: MetricRange, now: number): Promise<MetricPoint[]> {
    const width = METRIC_RANGES[range] * 1000;
    const start = Math.ceil((now - RANGE_SECONDS[range] * 1000) / width) * width;
    const raw = range === '1h' || range === '6h';
    const sql = raw
      ? `SELECT at - at % @w AS b, AVG(cpu_used_vcpu) AS cpu, AVG(memory_used_bytes) AS mem, AVG(disk_used_bytes) AS disk
           FROM box_metrics WHERE box_id = @box AND at >= @start AND at <= @now GROUP BY b ORDER BY b`
      : `SELECT bucket - bucket % @w AS b, SUM(cpu_sum) / NULLIF(SUM(cpu_n), 0) AS cpu, SUM(mem_sum) / NULLIF(SUM(mem_n), 0) AS mem,
                SUM(disk_sum) / NULLIF(SUM(disk_n), 0) AS disk
           FROM box_metrics_5m WHERE box_id = @box AND bucket >= @start AND bucket <= @now GROUP BY b ORDER BY b`;
    const rows = (await this.db.all(sql, { w: width, box: boxId, start, now })) as { b: number; cpu: number | null; mem: number | null; disk: number | null }[];
    return rows.map((r) => ({
      at: new Date(r.b).toISOString(),
      cpu_used_vcpu: r.cpu === null ? null : Math.round(r.cpu * 1000) / 1000,
      memory_used_bytes: r.mem === null ? null : Math.round(r.mem),
      disk_used_bytes: r.disk === null ? null : Math.round(r.disk),
    }));
  }
}
