import type { Request } from 'express';
import type { AppBase, RouteRegistrar } from '../app-context.js';
import { page } from '../contract/common.js';
import { notFound } from '../http/errors.js';
import { Reply } from '../http/route.js';
import { CreateInboxBody, InboxIdParams, ListDeliveriesQuery, PatchInboxBody, type Inbox } from '../contract/inbox.js';
import { InboxStore, MAX_KEPT_BODY_BYTES } from './inbox-store.js';

type Rec = NonNullable<ReturnType<InboxStore['get']>>;

export function inboxRoutes(r: RouteRegistrar, store: InboxStore, ctx: () => AppBase) {
  const hookUrl = (id: string) => `${ctx().baseUrl()}/v1/inbox/hooks/${id}`;
  const view = (rec: Rec): Inbox => ({
    inbox_id: rec.inbox_id,
    url: hookUrl(rec.inbox_id),
    respond_status: rec.respond_status,
    created_at: rec.created_at,
    delivery_count: rec.deliveries.length,
  });
  const own = (orgId: string, id: string) => {
    const rec = store.get(id);
    if (!rec || rec.orgId !== orgId) throw notFound(`No inbox ${id}.`, 'inbox_not_found', 'inbox_id');
    return rec;
  };

  r.add({
    method: 'post', path: '/v1/inbox', area: 'box', tag: 'inbox', summary: 'Create a webhook inbox (kept in memory)',
    body: CreateInboxBody,
    handler: ({ auth, body }) => view(store.create(auth.orgId, body.respond_status)),
  });

  r.add({
    method: 'get', path: '/v1/inboxes', area: 'box', tag: 'inbox', summary: 'List webhook inboxes',
    handler: ({ auth }) => ({ data: store.listFor(auth.orgId).map(view) }),
  });

  r.add({
    method: 'patch', path: '/v1/inbox/:inbox_id', area: 'box', tag: 'inbox', summary: 'Set the status an inbox answers with',
    params: InboxIdParams, body: PatchInboxBody,
    handler: ({ auth, params, body }) => {
      const rec = own(auth.orgId, params.inbox_id);
      rec.respond_status = body.respond_status;
      return view(rec);
    },
  });

  r.add({
    method: 'get', path: '/v1/inbox', area: 'box', tag: 'inbox', summary: 'Deliveries received by the inboxes, newest first',
    query: ListDeliveriesQuery,
    handler: ({ auth, query }) => {
      if (query.inbox_id) own(auth.orgId, query.inbox_id);
      const all = store.deliveries(auth.orgId, query.inbox_id);
      return page(all.slice(query.offset, query.offset + query.limit), query, all.length);
    },
  });

  r.add({
    method: 'post', path: '/v1/inbox/hooks/:inbox_id', area: 'box', tag: 'inbox', auth: 'none', rawBody: true,
    summary: 'Receive a webhook: records headers and body, answers the inbox status',
    params: InboxIdParams,
    handler: async ({ req, params }) => {
      const rec = store.get(params.inbox_id);
      if (!rec) throw notFound(`No inbox ${params.inbox_id}.`, 'inbox_not_found', 'inbox_id');
      const { kept, total } = await readCapped(req, MAX_KEPT_BODY_BYTES);
      const d = store.record(rec, {
        method: req.method,
        headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)])),
        body: kept.toString('utf8'),
        body_bytes: total,
        body_truncated: total > kept.length,
      });
      return new Reply(rec.respond_status, { received: true, delivery_id: d.delivery_id, status: rec.respond_status });
    },
  });
}

/** Reads the whole body, keeping at most `cap` bytes (the rest is counted, not stored). */
async function readCapped(req: Request, cap: number): Promise<{ kept: Buffer; total: number }> {
  const chunks: Buffer[] = [];
  let kept = 0;
  let total = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (kept < cap) {
      const part = chunk.subarray(0, cap - kept);
      chunks.push(part);
      kept += part.length;
    }
  }
  return { kept: Buffer.concat(chunks), total };
}
