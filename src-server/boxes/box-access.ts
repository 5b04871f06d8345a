import type { IncomingMessage } from 'node:http';
import type { RouteApp } from '../app-context.js';
import { OVERRIDE_HEADER, overrideReason } from '../contract/boxes.js';
import type { Principal } from '../core/principal.js';
import { invalid, notFound } from '../core/errors.js';
import type { BoxRecord } from './boxes-repo.js';
import { authorize, type AccessOp } from './transitions.js';

const noBox = (boxId: string) => notFound(`No box ${boxId} in this organization.`, null, 'box_id');

/** A box of the caller's organization, terminated ones included (kept a day): 404 otherwise. Reading needs no authorization. */
export function readBox(app: RouteApp, auth: Principal, boxId: string): BoxRecord {
  const box = app.services.boxes.repo.get(boxId);
  if (!box || box.org_id !== auth.orgId) throw noBox(boxId);
  return box;
}

/**
 * For route handlers: loads a box of the caller's organization (404 otherwise, and for a
 * terminated box unless `op` is 'read'), runs `authorize`, and audits an operator override.
 * `req` may be Express's or node:http's (routes served by http/plain-front.ts).
 */
export function boxFor(app: RouteApp, req: IncomingMessage & { originalUrl?: string }, auth: Principal, boxId: string, op: AccessOp): BoxRecord {
  const box = app.services.boxes.repo.get(boxId);
  if (!box || box.org_id !== auth.orgId || box.status === 'terminated') throw noBox(boxId);
  const header = req.headers[OVERRIDE_HEADER.toLowerCase()];
  if (authorize(auth, box, op, typeof header === 'string' ? header : undefined) === 'override') {
    const parsed = overrideReason.safeParse(header);
    if (!parsed.success) throw invalid(`Invalid ${OVERRIDE_HEADER}: ${parsed.error.issues[0]!.message}`, OVERRIDE_HEADER);
    const reason = parsed.data;
    app.services.audit.record(auth, `box.override.${op}`, boxId, { method: req.method, path: (req.originalUrl ?? req.url ?? '').split('?')[0] }, reason);
  }
  return box;
}
