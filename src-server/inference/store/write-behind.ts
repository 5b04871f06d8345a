import type { Logger } from '../../app-context.js';
import type { Db } from '../../db/connection.js';
import type { DeliveriesRepo } from '../webhooks/deliveries-repo.js';
import type { ResponsesRepo, StoredResponse } from './responses-repo.js';

type Delivery = Parameters<DeliveriesRepo['create']>[0];

/**
 * Stores finished synchronous requests off the request path (issue 10, gateway overhead):
 * the answer leaves first; every request finished in the same event-loop turn is then
 * written in ONE transaction on the fast connection (store/fast-connection.ts). Until
 * then `get` serves the pending copy, so GET /v1/responses/{id} right after the answer
 * finds it. Trade-off, stated: a kill -9 inside that one turn loses the stored COPY of an
 * answer the client already received (never a request the caller still waits on, never
 * box or user data); a normal stop flushes.
 */
export class ResponseWriteBehind {
  private pending = new Map<string, { stored: StoredResponse; delivery: Delivery | null }>();
  private scheduled = false;

  constructor(
    private fast: { db: Db; responses: ResponsesRepo; deliveries: DeliveriesRepo },
    private webhooksChanged: () => void,
    private log: Logger,
  ) {}

  add(stored: StoredResponse, delivery: Delivery | null): void {
    this.pending.set(stored.id, { stored, delivery });
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  get(id: string): StoredResponse | undefined {
    return this.pending.get(id)?.stored;
  }

  flush(): void {
    this.scheduled = false;
    if (!this.pending.size) return;
    const batch = [...this.pending.values()];
    let webhooks = false;
    try {
      this.fast.db.transaction(() => {
        for (const { stored, delivery } of batch) {
          this.fast.responses.insert(stored);
          if (delivery) {
            this.fast.deliveries.create(delivery, stored.completedAt!);
            webhooks = true;
          }
        }
      })();
    } catch (e) {
      this.log.error(`inference: storing ${batch.length} finished requests failed`, e);
    } finally {
      for (const { stored } of batch) this.pending.delete(stored.id);
    }
    if (webhooks) this.webhooksChanged();
  }
}
