import type { Logger } from '../../app-context.js';
import type { Db } from '../../db/connection.js';
import type { DeliveriesRepo } from '../webhooks/deliveries-repo.js';
import type { ResponsesRepo, StoredResponse } from './responses-repo.js';

type Delivery = Parameters<DeliveriesRepo['create']>[0];

/** Longest a finished request waits to be stored; more pending than MAX_PENDING flushes at once. */
const FLUSH_MS = 20;
const MAX_PENDING = 256;

/**
 * Stores finished synchronous requests off the request path (issue 10, gateway overhead):
 * the answer leaves first; every request finished within FLUSH_MS is then written in ONE
 * transaction on the fast connection (db/fast-connection.ts): at concurrency 16 one commit
 * (its WAL frames, its share of checkpoints) serves a dozen requests instead of one or two.
 * Until then `get` serves the pending copy, so GET /v1/responses/{id} right after the
 * answer finds it, and `settle(id)` writes it now for readers that go to the database
 * (the webhook delivery log). Trade-off, stated: a kill -9 within those 20 ms loses the
 * stored COPY of answers the clients already received (never a request a caller still
 * waits on, never box or user data, never a queued background request: those are stored
 * with FULL sync before their 202); a normal stop flushes.
 * When nothing else is in flight (`idle` says so), the batch would hold one request and its
 * timer would fire in the middle of the next one (with a ~20 ms upstream, just as its answer
 * comes back): then it is written right after this answer leaves (setImmediate) instead.
 */
export class ResponseWriteBehind {
  private pending = new Map<string, { stored: StoredResponse; delivery: Delivery | null }>();
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;

  constructor(
    private fast: { db: Db; responses: ResponsesRepo; deliveries: DeliveriesRepo },
    private webhooksChanged: () => void,
    private log: Logger,
    /** True when no other request is being answered now. */
    private idle: () => boolean = () => false,
  ) {}

  add(stored: StoredResponse, delivery: Delivery | null): void {
    this.pending.set(stored.id, { stored, delivery });
    if (this.pending.size >= MAX_PENDING) void this.flush();
    else if (this.timer === undefined && this.idle()) this.immediate ??= setImmediate(() => void this.flush());
    else this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS);
  }

  get(id: string): StoredResponse | undefined {
    return (this.pending.get(id) ?? this.inFlight.get(id))?.stored;
  }

  /** Writes now when `id` is still pending (for readers of the database rows). */
  async settle(id: string): Promise<void> {
    if (this.pending.has(id)) await this.flush();
    else await this.writing;
  }

  private writing: Promise<void> = Promise.resolve();
  /** Taken from `pending` by a flush, readable through `get` until written. */
  private inFlight = new Map<string, { stored: StoredResponse; delivery: Delivery | null }>();

  /** Writes every pending request in one transaction; never throws (a failure is logged). */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    clearImmediate(this.immediate);
    this.timer = undefined;
    this.immediate = undefined;
    if (!this.pending.size) return this.writing;
    const batch = [...this.pending.values()];
    for (const b of batch) this.inFlight.set(b.stored.id, b);
    this.pending.clear();
    this.writing = this.writing.then(async () => {
      let webhooks = false;
      try {
        await this.fast.db.transaction(async () => {
          for (const { stored, delivery } of batch) {
            await this.fast.responses.insert(stored);
            if (delivery) {
              await this.fast.deliveries.create(delivery, stored.completedAt!);
              webhooks = true;
            }
          }
        });
      } catch (e) {
        this.log.error(`inference: storing ${batch.length} finished requests failed`, e);
      } finally {
        for (const { stored } of batch) this.inFlight.delete(stored.id);
      }
      if (webhooks) this.webhooksChanged();
    });
    return this.writing;
  }
}
