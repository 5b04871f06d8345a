import type { Request } from 'express';
import type { AppContext } from '../app-context.js';
import { OVERRIDE_HEADER, overrideReason } from '../contract/boxes.js';
import type { Principal } from '../http/auth.js';
import { forbidden, notFound } from '../http/errors.js';
import { parseOr400 } from '../http/validate.js';
import type { BoxRecord } from './boxes-repo.js';

/**
 * Spec, Authentication 5: on a private box someone else created, these operations accept
 * an operator override (reason → audit log); the others stay with the creator.
 */
const OVERRIDABLE = new Set(['pause', 'resume', 'sleep', 'wake_at', 'upgrade', 'reboot', 'terminate', 'delete_checkpoint', 'http_policy', 'exec', 'files', 'auto_sleep']);
export type AccessOp = 'read' | 'pause' | 'resume' | 'sleep' | 'wake_at' | 'upgrade' | 'reboot' | 'terminate' | 'delete_checkpoint' | 'http_policy' | 'exec' | 'files' | 'auto_sleep' | 'listeners' | 'domains' | 'checkpoint' | 'from_checkpoint' | 'fork' | 'cron';

/** Loads a box of the caller's organization (404 otherwise) and checks the caller may do `op` on it. */
export function boxFor(app: AppContext, req: Request, auth: Principal, boxId: string, op: AccessOp): BoxRecord {
  const box = app.services.boxes.repo.get(boxId);
  if (!box || box.org_id !== auth.orgId || box.status === 'terminated') throw notFound(`No box ${boxId} in this organization.`, null, 'box_id');
  if (op === 'read' || box.visibility !== 'private' || box.created_by_key_id === auth.key.id) return box;
  const header = req.headers[OVERRIDE_HEADER.toLowerCase()];
  if (!OVERRIDABLE.has(op)) {
    throw forbidden(`Box ${boxId} is private; only the key that created it may ${op.replace('_', ' ')} it (no override).`);
  }
  if (typeof header !== 'string') {
    throw forbidden(`Box ${boxId} is private to the key that created it; to operate it anyway, send a reason in the ${OVERRIDE_HEADER} header.`);
  }
  const reason = parseOr400(overrideReason, header, OVERRIDE_HEADER);
  app.repos.audit.add({ org_id: auth.orgId, key_id: auth.key.id, action: `box.override.${op}`, target: boxId, reason, details: { method: req.method, path: req.path } });
  return box;
}
