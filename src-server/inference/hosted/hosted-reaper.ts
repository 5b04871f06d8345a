import type { Logger } from '../../logger.js';
import type { HostedBoxPort } from './box-port.js';

/** How often idle hosted boxes are looked for. */
const SWEEP_MS = 60_000;

/**
 * Terminates the boxes hosted tools made (`container: auto`, in the `hosted-tools` app)
 * once idle for `ttlS` seconds (BOX_HOSTED_BOX_TTL): their last activity (exec, code run,
 * wake), else their creation. They sleep on their own before that (auto-sleep).
 */
export class HostedReaper {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private port: HostedBoxPort,
    private ttlS: number,
    private log: Logger,
  ) {}

  start() {
    this.timer = setInterval(() => void this.sweep(Date.now()), SWEEP_MS);
    this.timer.unref();
  }

  stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Terminates the hosted boxes idle at `now`; answers their ids. */
  async sweep(now: number): Promise<string[]> {
    const gone: string[] = [];
    for (const b of await this.port.hostedBoxes()) {
      const since = Date.parse(b.last_activity_at ?? b.created_at);
      if (now - since < this.ttlS * 1000) continue;
      try {
        await this.port.terminate(b);
        gone.push(b.box_id);
        this.log.info(`hosted tools: box ${b.box_id} (${b.name}) idle for ${Math.round((now - since) / 1000)} s: terminated`);
      } catch (e) {
        this.log.warn(`hosted tools: box ${b.box_id} could not be terminated: ${(e as Error).message}`);
      }
    }
    return gone;
  }
}
