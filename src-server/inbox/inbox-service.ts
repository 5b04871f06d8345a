import type { Inbox, InboxDelivery } from '../contract/inbox.js';
import { notFound } from '../core/domain-errors.js';
import { keptHeaders, toDelivery, type DeliveryRow, type InboxRecord, type InboxRepo } from './inbox-repo.js';

/** Bounds (an unauthenticated sender can post to any inbox URL it learns). */
const MAX_DELIVERIES_PER_INBOX = 500;
/** Bytes of body kept per delivery; the rest is counted, not stored. */
export const MAX_KEPT_BODY_BYTES = 256 * 1024;
const MAX_INBOXES_PER_ORG = 50;
/** Bytes kept (bodies + headers) over all inboxes of an organization; the oldest deliveries go first. */
const MAX_KEPT_BYTES_PER_ORG = 32 * 1024 * 1024;

/**
 * Webhook inboxes, kept in SQLite (they survive a restart), newest delivery first. Bounded
 * per inbox (count), per delivery (body bytes) and per organization (inboxes, total bytes),
 * the oldest dropped first, so whatever a sender posts the service's disk and memory stay
 * bounded.
 */
export class InboxService {
  constructor(
    private repo: InboxRepo,
    /** Where senders post to an inbox (known once the service listens). */
    private hookUrl: (inboxId: string) => string,
    private maxKeptBytesPerOrg = MAX_KEPT_BYTES_PER_ORG,
  ) {}

  /** An inbox as the API shows it. */
  async view(rec: InboxRecord): Promise<Inbox> {
    return {
      inbox_id: rec.inbox_id,
      url: this.hookUrl(rec.inbox_id),
      respond_status: rec.respond_status,
      created_at: rec.created_at,
      delivery_count: await this.repo.deliveryCount(rec.inbox_id),
    };
  }

  /** A new inbox; the organization's oldest goes when it already has MAX_INBOXES_PER_ORG. */
  async create(orgId: string, respondStatus: number, owner: string | null = null): Promise<InboxRecord> {
    const rec: InboxRecord = { inbox_id: `inbox_${crypto.randomUUID()}`, orgId, respond_status: respondStatus, created_at: new Date().toISOString(), owner };
    await this.repo.atomically(async () => {
      await this.repo.trimInboxes(orgId, MAX_INBOXES_PER_ORG - 1);
      await this.repo.insert(rec);
    });
    return rec;
  }

  /**
   * The caller's own inbox (owner: the user of its key, else the key): the one it already
   * has, kept across visits and restarts, or a new one the first time.
   */
  mine(orgId: string, owner: string): Promise<InboxRecord> {
    return this.repo.atomically(async () => (await this.repo.ownedBy(orgId, owner)) ?? this.create(orgId, 200, owner));
  }

  /** Any inbox by id (the hook URL is the credential of an unauthenticated sender); 404 otherwise. */
  async get(inboxId: string): Promise<InboxRecord> {
    const rec = await this.repo.get(inboxId);
    if (!rec) throw notFound(`No inbox ${inboxId}.`, 'inbox_not_found', 'inbox_id');
    return rec;
  }

  /** An inbox of the organization; 404 for another organization's, as for a missing one. */
  async own(orgId: string, inboxId: string): Promise<InboxRecord> {
    const rec = await this.repo.get(inboxId);
    if (!rec || rec.orgId !== orgId) throw notFound(`No inbox ${inboxId}.`, 'inbox_not_found', 'inbox_id');
    return rec;
  }

  async listFor(orgId: string): Promise<InboxRecord[]> {
    return await this.repo.listFor(orgId);
  }

  async setStatus(orgId: string, inboxId: string, status: number): Promise<InboxRecord> {
    const rec = await this.own(orgId, inboxId);
    await this.repo.setStatus(rec.inbox_id, status);
    return { ...rec, respond_status: status };
  }

  /** Stores one delivery (durably: it is on disk before the sender gets its answer), then trims. */
  async record(rec: InboxRecord, d: { method: string; headers: Record<string, string>; body: Buffer; body_bytes: number }): Promise<InboxDelivery> {
    const headers = JSON.stringify(keptHeaders(d.headers));
    const row: DeliveryRow = {
      delivery_id: `dlv_${crypto.randomUUID()}`,
      inbox_id: rec.inbox_id,
      received_at: new Date().toISOString(),
      method: d.method,
      headers,
      body: d.body,
      body_bytes: d.body_bytes,
      body_truncated: d.body_bytes > d.body.length ? 1 : 0,
      answered_status: rec.respond_status,
    };
    await this.repo.atomically(async () => {
      await this.repo.insertDelivery(row, rec.orgId, d.body.length + Buffer.byteLength(headers));
      await this.repo.trimDeliveries(rec.inbox_id, MAX_DELIVERIES_PER_INBOX);
      await this.repo.trimOrgBytes(rec.orgId, this.maxKeptBytesPerOrg);
    });
    return toDelivery(row);
  }

  /** A page of the organization's deliveries (of one of its inboxes, or all), newest first. */
  async deliveries(orgId: string, inboxId: string | undefined, limit: number, offset: number) {
    if (inboxId) await this.own(orgId, inboxId);
    return await this.repo.deliveries(orgId, inboxId, limit, offset);
  }
}
