import type { Inbox, InboxDelivery } from '../contract/inbox.js';

/** Deliveries kept per inbox, and bytes of body kept per delivery. */
const MAX_DELIVERIES_PER_INBOX = 500;
export const MAX_KEPT_BODY_BYTES = 256 * 1024;
const MAX_INBOXES_PER_ORG = 50;

interface InboxRecord extends Omit<Inbox, 'url' | 'delivery_count'> {
  orgId: string;
  deliveries: InboxDelivery[];
}

/** In-memory inboxes, newest delivery first; the oldest inbox goes when an org has too many. */
export class InboxStore {
  private readonly inboxes = new Map<string, InboxRecord>();

  create(orgId: string, respondStatus: number): InboxRecord {
    const own = [...this.inboxes.values()].filter((i) => i.orgId === orgId);
    if (own.length >= MAX_INBOXES_PER_ORG) this.inboxes.delete(own[0].inbox_id);
    const rec: InboxRecord = { inbox_id: `inbox_${crypto.randomUUID()}`, orgId, respond_status: respondStatus, created_at: new Date().toISOString(), deliveries: [] };
    this.inboxes.set(rec.inbox_id, rec);
    return rec;
  }

  get(inboxId: string): InboxRecord | undefined {
    return this.inboxes.get(inboxId);
  }

  listFor(orgId: string): InboxRecord[] {
    return [...this.inboxes.values()].filter((i) => i.orgId === orgId);
  }

  record(rec: InboxRecord, d: Omit<InboxDelivery, 'delivery_id' | 'inbox_id' | 'received_at' | 'answered_status'>): InboxDelivery {
    const delivery: InboxDelivery = {
      delivery_id: `dlv_${crypto.randomUUID()}`,
      inbox_id: rec.inbox_id,
      received_at: new Date().toISOString(),
      answered_status: rec.respond_status,
      ...d,
    };
    rec.deliveries.unshift(delivery);
    if (rec.deliveries.length > MAX_DELIVERIES_PER_INBOX) rec.deliveries.length = MAX_DELIVERIES_PER_INBOX;
    return delivery;
  }

  /** Every delivery of the org's inboxes (or of one), newest first. */
  deliveries(orgId: string, inboxId?: string): InboxDelivery[] {
    return this.listFor(orgId)
      .filter((i) => !inboxId || i.inbox_id === inboxId)
      .flatMap((i) => i.deliveries)
      .sort((a, b) => (a.received_at < b.received_at ? 1 : a.received_at > b.received_at ? -1 : 0));
  }
}
