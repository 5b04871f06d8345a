import type { IncomingMessage } from 'node:http';
import { OVERRIDE_HEADER, overrideReason } from '../contract/boxes.js';
import type { AuditLog } from '../core/audit-log.js';
import type { Principal } from '../core/principal.js';
import { invalid, notFound } from '../core/domain-errors.js';
import type { BoxRecord } from './boxes-repo.js';
import { authorize, type AccessOp } from './transitions.js';

const noBox = (boxId: string) => notFound(`No box ${boxId} in this organization.`, null, 'box_id');

/** How route handlers of every area load a box (the boxes area builds it; `boxAccess`). */
export interface BoxAccess {
  /** A box of the caller's organization, terminated ones included (kept a day): 404 otherwise. Reading needs no authorization. */
  readBox(auth: Principal, boxId: string): Promise<BoxRecord>;
  /**
   * Loads a box of the caller's organization (404 otherwise, and for a terminated box
   * unless `op` is 'read'), runs `authorize`, and audits an operator override.
   * `req` may be Express's or node:http's (routes served by http/plain-front.ts).
   */
  boxFor(req: IncomingMessage & { originalUrl?: string }, auth: Principal, boxId: string, op: AccessOp): Promise<BoxRecord>;
}

export function boxAccess(deps: { lookup: (boxId: string) => Promise<BoxRecord | undefined>; audit: Pick<AuditLog, 'record'> }): BoxAccess {
  const { lookup, audit } = deps;
  return {
    async readBox(auth, boxId) {
      const box = await lookup(boxId);
      if (!box || box.org_id !== auth.orgId) throw noBox(boxId);
      return box;
    },
    async boxFor(req, auth, boxId, op) {
      const box = await lookup(boxId);
      if (!box || box.org_id !== auth.orgId || box.status === 'terminated') throw noBox(boxId);
      const header = req.headers[OVERRIDE_HEADER.toLowerCase()];
      if (authorize(auth, box, op, typeof header === 'string' ? header : undefined) === 'override') {
        const parsed = overrideReason.safeParse(header);
        if (!parsed.success) throw invalid(`Invalid ${OVERRIDE_HEADER}: ${parsed.error.issues[0]!.message}`, OVERRIDE_HEADER);
        const reason = parsed.data;
        await audit.record(auth, `box.override.${op}`, boxId, { method: req.method, path: (req.originalUrl ?? req.url ?? '').split('?')[0] }, reason);
      }
      return box;
    },
  };
}
