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

export interface Inbox {
  inbox_id: string;
  /** POST here; no API key needed (webhook senders have none). */
  url: string;
  respond_status: number;
  created_at: string;
  delivery_count: number;
}

export interface InboxDelivery {
  delivery_id: string;
  inbox_id: string;
  received_at: string;
  method: string;
  headers: Record<string, string>;
  /** The body as text (UTF-8); `body_truncated` when it exceeded the kept size. */
  body: string;
  body_bytes: number;
  body_truncated: boolean;
  answered_status: number;
}
