import type { AppBase } from '../app-context.js';
import type { CronRun } from '../contract/cron.js';
import type { BoxService } from '../boxes/module.js';
import type { ExecService } from '../boxes/module.js';
import type { CronRow } from './cron-repo.js';
import { nextRun, type CronService } from './cron-service.js';

const TAIL_CHARS = 4096;

/** Runs due cron jobs through exec. A run never overlaps the same job's previous run. */
export class CronRunner {
  private timer?: NodeJS.Timeout;
  private running = new Set<string>();

  constructor(
    private app: AppBase,
    private cron: CronService,
    private boxes: BoxService,
    private execs: ExecService,
  ) {}

  start() {
    this.timer = setInterval(async () => await this.tick(), this.app.config.tuning.cronTickMs);
    this.timer.unref();
  }

  stop() {
    clearInterval(this.timer);
  }

  /** Starts every job that is due; missed runs are not replayed, the next one is scheduled from now. */
  async tick(now = new Date()) {
    for (const row of await this.cron.repo.due(now.toISOString())) {
      await this.cron.repo.markStarted(row.id, now.toISOString(), nextRun(row.schedule, row.timezone, now));
      void this.run(row, now.toISOString());
    }
  }

  /** One run: wakes a sleeping box and lets it sleep again; a paused box is skipped. */
  async run(row: CronRow, startedAt = new Date().toISOString()): Promise<CronRun> {
    const run: CronRun & { cron_id: string } = {
      run_id: `run_${crypto.randomUUID()}`,
      cron_id: row.id,
      started_at: startedAt,
      finished_at: null,
      status: 'running',
      return_code: null,
      output_tail: '',
    };
    const boxes = this.boxes;
    const box = await boxes.get(row.box_id);
    const skip = async (why: string) => {
      await this.cron.repo.addRun({ ...run, status: 'skipped', finished_at: startedAt, output_tail: why });
      return { ...run, status: 'skipped' as const, output_tail: why };
    };
    if (!box || box.status === 'terminated') return skip('the box no longer exists');
    if (box.status === 'paused') return skip('the box is paused; paused boxes wake only on resume');
    if (this.running.has(row.id)) return skip('the previous run is still going');
    this.running.add(row.id);
    await this.cron.repo.addRun(run);
    const wasSleeping = box.status === 'sleeping';
    try {
      const session = await this.execs.start(box, {
        command: row.command,
        cwd: row.cwd ?? undefined,
        user: row.user ?? undefined,
        env: this.cron.env(row),
        timeout: row.timeout ?? undefined,
        idempotency_key: `cron:${run.run_id}`,
      });
      await session.done;
      const tail = Buffer.concat([session.tail('stdout'), session.tail('stderr')])
        .toString('utf8')
        .slice(-TAIL_CHARS);
      const status = session.status === 'running' ? 'failed' : session.status;
      await this.cron.repo.finishRun(run.run_id, status, session.returnCode, tail);
      if (wasSleeping) await this.sleepAgain(box.box_id);
      return { ...run, status, return_code: session.returnCode, output_tail: tail, finished_at: new Date().toISOString() };
    } catch (e) {
      await this.cron.repo.finishRun(run.run_id, 'failed', null, (e as Error).message);
      return { ...run, status: 'failed', output_tail: (e as Error).message };
    } finally {
      this.running.delete(row.id);
    }
  }

  private async sleepAgain(boxId: string) {
    const boxes = this.boxes;
    const box = await boxes.get(boxId);
    if (box?.status === 'running' && !this.execs.hasRunning(boxId)) {
      await boxes.sleep(box, undefined).catch((e) => this.app.log.warn(`cron: could not put ${boxId} back to sleep: ${(e as Error).message}`));
    }
  }
}
