import type { AppBase } from '../app-context.js';
import type { BoxService } from './lifecycle/box-service.js';
import type { CheckpointService } from './lifecycle/checkpoint-service.js';
import type { ExecService } from './exec-service.js';

const PURGE_EVERY_MS = 60_000;

/**
 * Time-driven box work: scheduled wakes, auto-sleep of idle boxes, expiry of checkpoints,
 * and (once a minute) the purge of boxes terminated more than a day ago.
 * One tick a second; each box's work runs under its lock, so ticks never pile up on a box.
 */
export class BoxScheduler {
  private timer?: NodeJS.Timeout;
  private running = false;
  private lastPurge = 0;

  constructor(
    private app: AppBase,
    private boxes: BoxService,
    private execs: ExecService,
    private checkpoints: CheckpointService,
  ) {}

  start() {
    this.timer = setInterval(() => void this.tick(), this.app.config.tuning.boxTickMs);
    this.timer.unref();
  }

  stop() {
    clearInterval(this.timer);
  }

  async tick(now = Date.now()) {
    if (this.running) return;
    this.running = true;
    try {
      for (const box of await this.boxes.live()) {
        if (box.status === 'sleeping' && box.wake_at && Date.parse(box.wake_at) <= now) {
          await this.boxes.resume(box).catch((e) => this.app.log.error(`scheduled wake of ${box.box_id}`, e, { box_id: box.box_id }));
        } else if (box.status === 'running' && box.auto_sleep.automatic && box.auto_sleep.min_seconds_before_sleep) {
          const idleMs = now - Date.parse(box.last_activity_at ?? box.updated_at);
          if (idleMs >= box.auto_sleep.min_seconds_before_sleep * 1000 && !this.execs.hasRunning(box.box_id)) {
            await this.boxes.sleep(box, undefined).catch((e) => this.app.log.error(`auto-sleep of ${box.box_id}`, e, { box_id: box.box_id }));
          }
        }
      }
      if (now - this.lastPurge >= PURGE_EVERY_MS) {
        this.lastPurge = now;
        await this.boxes.purgeTerminated(now);
      }
      for (const cp of await this.checkpoints.expired(now)) {
        await this.checkpoints.delete(cp).catch((e) => this.app.log.error(`expire ${cp.checkpoint_id}`, e));
      }
    } finally {
      this.running = false;
    }
  }
}
