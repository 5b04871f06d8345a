import type { AppBase } from '../app-context.js';
import type { BoxService } from '../boxes/module.js';
import type { BoxRecord } from '../boxes/ports.js';
import type { MetricsRepo, Sample } from './metrics-repo.js';
import type { UsageService } from './usage-service.js';

/** A gap longer than this many intervals (service down, host asleep) is not billed past it. */
const MAX_GAP_INTERVALS = 3;

interface Last {
  at: number;
  cpuSeconds: number | undefined;
}

/**
 * Every interval: samples each running box's VM (CPU time, RSS, disk), stores a metrics
 * point, and bills the time since the previous tick. Billing granularity is the interval:
 * a box seen running at two ticks is billed for the time between them; a box seen for the
 * first time is billed from when it last changed state (at most one interval back).
 */
export class MetricsSampler {
  private last = new Map<string, Last>();
  private timer?: NodeJS.Timeout;
  private ticking = false;

  constructor(
    private app: AppBase,
    private boxes: BoxService,
    private usage: UsageService,
    private metrics: MetricsRepo,
    readonly everyMs: number,
  ) {}

  start(): void {
    this.timer = setInterval(async () => void this.tick().catch((e) => this.app.log.error('usage: metrics tick failed', e)), this.everyMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** One sampling round at `now` (tests pass a controlled time). Overlapping calls are skipped. */
  async tick(now = Date.now()): Promise<void> {
    const boxes = this.boxes;
    if (this.ticking) return;
    this.ticking = true;
    try {
      const running = (await boxes.live()).filter((b) => b.status === 'running');
      const taken = await Promise.all(running.map((b) => this.take(b, now)));
      await this.app.db.transaction(async () => {
        for (const { box, sample, billFrom } of taken) {
          await this.metrics.add(sample);
          await this.usage.recordBoxTime(box, billFrom, now);
        }
        await this.metrics.prune(now);
      });
      const ids = new Set(running.map((b) => b.box_id));
      for (const id of this.last.keys()) if (!ids.has(id)) this.last.delete(id);
    } finally {
      this.ticking = false;
    }
  }

  private async take(box: BoxRecord, now: number): Promise<{ box: BoxRecord; sample: Sample; billFrom: number }> {
    const runtime = this.boxes.meters;
    const vm = await runtime.sample?.(box.box_id).catch(() => undefined);
    let disk: number | null;
    try {
      disk = runtime.diskUsageBytes(box.box_id);
    } catch {
      disk = null;
    }
    const prev = this.last.get(box.box_id);
    let cpu: number | null = null;
    if (vm && prev?.cpuSeconds !== undefined && now > prev.at && vm.cpuSeconds >= prev.cpuSeconds) {
      cpu = (vm.cpuSeconds - prev.cpuSeconds) / ((now - prev.at) / 1000);
    }
    this.last.set(box.box_id, { at: now, cpuSeconds: vm?.cpuSeconds });
    const since = prev ? prev.at : Math.max(now - this.everyMs, Date.parse(box.updated_at));
    const billFrom = Math.max(since, now - MAX_GAP_INTERVALS * this.everyMs);
    return { box, sample: { boxId: box.box_id, at: now, cpu, mem: vm?.rssBytes ?? null, disk }, billFrom };
  }
}
