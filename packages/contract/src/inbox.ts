import { z } from 'zod';

/**
 * The webhook inbox: a local receiver for completion webhooks, so the playground (and
 * tests) can see every delivery. Inboxes are kept in SQLite (across restarts) within fixed
 * bounds: a developer tool, not storage.
 * No node imports: the renderer reads these types.
 */
const INBOX_ID = /^inbox_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const InboxIdParams = z.object({ inbox_id: z.string().regex(INBOX_ID, 'inbox_id must be "inbox_" followed by a UUID') });

/** The status the hook answers with: 2xx accepts; anything else makes the sender retry. */
const respondStatus = z.number().int().min(200).max(599);

export const CreateInboxBody = z.strictObject({ respond_status: respondStatus.optional().default(200) });
export const PatchInboxBody = z.strictObject({ respond_status: respondStatus });

export const ListDeliveriesQuery = z.object({
  inbox_id: z.string().regex(INBOX_ID, 'must be "inbox_" followed by a UUID').optional(),
  limit: z.string().regex(/^\d+$/, 'must be an integer').transform(Number).pipe(z.number().int().min(1).max(100)).optional().default(50),
  offset: z.string().regex(/^\d+$/, 'must be an integer').transform(Number).pipe(z.number().int().min(0).max(100000)).optional().default(0),
});

export const Inbox = z.object({
  inbox_id: z.string(),
  /** POST here; no API key needed (webhook senders have none). */
  url: z.string(),
  respond_status: z.number().int(),
  created_at: z.string(),
  delivery_count: z.number().int(),
});
export type Inbox = z.infer<typeof Inbox>;

export const InboxDelivery = z.object({
  delivery_id: z.string(),
  inbox_id: z.string(),
  received_at: z.string(),
  method: z.string(),
  headers: z.record(z.string(), z.string()),
  /** The body as text (UTF-8); `body_truncated` when it exceeded the kept size. */
  body: z.string(),
  body_bytes: z.number().int(),
  body_truncated: z.boolean(),
  answered_status: z.number().int(),
});
export type InboxDelivery = z.infer<typeof InboxDelivery>;

/** What the hook answers the webhook sender (with the inbox's status). */
export const HookReceipt = z.object({ received: z.literal(true), delivery_id: z.string(), status: z.number().int() });
