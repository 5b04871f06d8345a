import type { ResponsesRepo } from '../store/responses-repo.js';

/**
 * Runs `background: true` requests. The queue is the inference_responses table itself
 * (status `queued`), so it survives a restart: on start, work that was in progress goes
 * back to `queued` and is picked up again. At most `concurrency` run at once.
 */
export class BackgroundQueue {
  private active = new Set<Promise<void>>();
  private taken = new Set<string>();
  private stopped = true;

  constructor(
    private repo: ResponsesRepo,
    private run: (id: string) => Promise<void>,
    private concurrency: number,
  ) {}

  async start(): Promise<void> {
    await this.repo.recoverAfterRestart(Date.now());
    this.stopped = false;
    await this.kick();
  }

  /** Takes queued requests while there is room. */
  async kick(): Promise<void> {
    if (this.stopped) return;
    const room = this.concurrency - this.active.size;
    if (room <= 0) return;
    const ids = (await this.repo.queuedIds(room + this.taken.size)).filter((id) => !this.taken.has(id)).slice(0, room);
    for (const id of ids) {
      this.taken.add(id);
      const p: Promise<void> = this.run(id)
        .catch(() => undefined)
        .finally(async () => {
          this.active.delete(p);
          this.taken.delete(id);
          await this.kick();
        });
      this.active.add(p);
    }
  }

  /** Stops taking work; waits a while for what runs (anything cut off is re-queued on the next start). */
  async stop(waitMs = 5000): Promise<void> {
    this.stopped = true;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled(this.active), new Promise((r) => (timer = setTimeout(r, waitMs)))]);
    clearTimeout(timer);
  }
}
