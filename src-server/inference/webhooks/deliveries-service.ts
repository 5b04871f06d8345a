import type { DeliveryList } from '../../contract/inference.js';
import { conflict, notFound } from '../../core/domain-errors.js';
import type { StoredResponse } from '../store/responses-repo.js';
import type { DeliveriesRepo } from './deliveries-repo.js';

/**
 * Completion webhooks as the API shows them: every attempt for a response, and a fresh
 * series of rounds on demand (the dispatcher sends them). Only the response's organization
 * sees or resends its deliveries (another's is a 404, as a missing one).
 */
export class WebhookDeliveriesService {
  constructor(
    private deps: { getResponse: (id: string) => Promise<StoredResponse | undefined>; deliveries: DeliveriesRepo; rounds: number; changed: () => void },
  ) {}

  private async own(responseId: string, orgId: string): Promise<void> {
    const stored = await this.deps.getResponse(responseId);
    if (!stored || stored.orgId !== orgId) throw notFound(`No response with id ${responseId}.`, null, 'response_id');
  }

  async list(orgId: string, responseId: string): Promise<DeliveryList> {
    await this.own(responseId, orgId);
    const d = await this.deps.deliveries.get(responseId);
    const data = d ? (await this.deps.deliveries.attempts(d.responseId)).map((a) => ({ ...a, at: new Date(a.at).toISOString() })) : [];
    return {
      object: 'list',
      data,
      url: d?.url ?? null,
      state: d ? (d.state === 'waiting' || d.state === 'skipped' ? 'none' : d.state) : 'none',
      rounds_done: d?.roundsDone ?? 0,
      next_round_at: d?.state === 'pending' ? new Date(d.nextAt).toISOString() : null,
    };
  }

  /** Starts a fresh series of rounds now; 409 while the response runs, or when it has no webhook or failed. */
  async redeliver(orgId: string, responseId: string): Promise<{ response_id: string; state: 'pending' }> {
    await this.own(responseId, orgId);
    const d = await this.deps.deliveries.get(responseId);
    if (!d) throw conflict('This response has no valid metadata.completion_webhook.', 'no_webhook');
    if (d.state === 'waiting') throw conflict('This response has not finished yet; its webhook is sent when it does.', 'not_finished');
    if (d.state === 'skipped')
      throw conflict('This response failed; completion webhooks are sent for completed and incomplete responses only.', 'failed_precondition');
    await this.deps.deliveries.redeliver(d.responseId, this.deps.rounds, Date.now());
    this.deps.changed();
    return { response_id: d.responseId, state: 'pending' };
  }
}
