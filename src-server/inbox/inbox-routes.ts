import type { Request } from 'express';
import type { Principal } from '../core/principal.js';
import type { RouteRegistrar } from '../http/route.js';
import { page } from '../contract/common.js';
import { ApiError } from '../http/api-errors.js';
import { Reply } from '../http/route.js';
import { CreateInboxBody, InboxIdParams, ListDeliveriesQuery, PatchInboxBody } from '../contract/inbox.js';
import { type InboxService, MAX_KEPT_BODY_BYTES } from './inbox-service.js';

/** Whose inbox: the user of the API key (the UI session's too), else the key itself. */
const owner = (auth: Principal) => auth.key.user_id ?? auth.key.id;

/** Hook requests read at once (each keeps up to MAX_KEPT_BODY_BYTES in memory while it is read). */
const MAX_HOOKS_IN_FLIGHT = 16;

export function inboxRoutes(r: RouteRegistrar, inboxes: InboxService) {
  let inFlight = 0;
  const view = inboxes.view.bind(inboxes);

  r.add({
    method: 'post',
    path: '/v1/inbox',
    area: 'box',
    tag: 'inbox',
    summary: 'Create a webhook inbox (kept across restarts, bounded)',
    body: CreateInboxBody,
    handler: async ({ auth, body }) => view(await inboxes.create(auth.orgId, body.respond_status)),
  });

  r.add({
    method: 'post',
    path: '/v1/inbox/mine',
    area: 'box',
    tag: 'inbox',
    summary: "Your own inbox (of this key's user, else this key): the one you have, or a new one the first time",
    handler: async ({ auth }) => view(await inboxes.mine(auth.orgId, owner(auth))),
  });

  r.add({
    method: 'get',
    path: '/v1/inboxes',
    area: 'box',
    tag: 'inbox',
    summary: 'List webhook inboxes',
    handler: async ({ auth }) => ({ data: await Promise.all((await inboxes.listFor(auth.orgId)).map(view)) }),
  });

  r.add({
    method: 'patch',
    path: '/v1/inbox/:inbox_id',
    area: 'box',
    tag: 'inbox',
    summary: 'Set the status an inbox answers with',
    params: InboxIdParams,
    body: PatchInboxBody,
    handler: async ({ auth, params, body }) => await view(await inboxes.setStatus(auth.orgId, params.inbox_id, body.respond_status)),
  });

  r.add({
    method: 'get',
    path: '/v1/inbox',
    area: 'box',
    tag: 'inbox',
    summary: 'Deliveries received by the inboxes, newest first',
    query: ListDeliveriesQuery,
    handler: async ({ auth, query }) => {
      const { rows, total } = await inboxes.deliveries(auth.orgId, query.inbox_id, query.limit, query.offset);
      return page(rows, query, total);
    },
  });

  r.add({
    method: 'post',
    path: '/v1/inbox/hooks/:inbox_id',
    area: 'box',
    tag: 'inbox',
    auth: 'none',
    rawBody: true,
    summary: 'Receive a webhook: records headers and body, answers the inbox status',
    params: InboxIdParams,
    handler: async ({ req, params }) => {
      const rec = await inboxes.get(params.inbox_id);
      if (inFlight >= MAX_HOOKS_IN_FLIGHT) {
        throw new ApiError(429, 'rate_limit_error', `Too many webhook deliveries in flight (limit ${MAX_HOOKS_IN_FLIGHT}); retry after the delay.`, {
          code: 'rate_limited',
          headers: { 'Retry-After': '1', Connection: 'close' },
        });
      }
      inFlight++;
      try {
        const { kept, total } = await readCapped(req, MAX_KEPT_BODY_BYTES);
        const d = await inboxes.record(rec, {
          method: req.method,
          headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)])),
          body: kept,
          body_bytes: total,
        });
        return new Reply(rec.respond_status, { received: true, delivery_id: d.delivery_id, status: rec.respond_status });
      } finally {
        inFlight--;
      }
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
