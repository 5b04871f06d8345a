import type { AppBase } from '../app-context.js';
import type { BoxService } from '../boxes/module.js';
import { planQuit, type QuitPlan } from './quit-plan.js';
import { ServiceSettingsRepo } from '../db/service-settings-repo.js';

/**
 * Service settings and quitting (issue 15): `on_quit` says what quitting does to running
 * boxes; the desktop shell (src-main) and the headless entry (headless.ts) ask `plan`
 * before they close the service, and `stopBoxes` when the plan (or the user) says so.
 */
export class QuitService {
  readonly settings: ServiceSettingsRepo;

  constructor(
    private app: AppBase,
    private boxes: BoxService,
  ) {
    this.settings = new ServiceSettingsRepo(app.db);
  }

  async running() {
    return (await this.boxes.live()).filter((b) => b.status === 'running');
  }

  async plan(where: 'desktop' | 'headless'): Promise<QuitPlan> {
    return planQuit((await this.settings.get()).on_quit, (await this.running()).length, where);
  }

  /** Puts every running box to sleep, all at once; a box that fails to save is reported, not retried. */
  async stopBoxes(report: (line: string) => void = () => {}): Promise<{ slept: number; failed: number }> {
    const list = await this.running();
    const results = await Promise.allSettled(
      list.map(async (b) => {
        await this.boxes.sleep(b, undefined);
        report(`  ${b.name}: asleep`);
      }),
    );
    let failed = 0;
    results.forEach((r, i) => {
      if (r.status === 'fulfilled') return;
      failed++;
      const msg = `  ${list[i]!.name}: could not be put to sleep (${(r.reason as Error).message}); it keeps running`;
      this.app.log.warn(msg.trim());
      report(msg);
    });
    return { slept: list.length - failed, failed };
  }
}
