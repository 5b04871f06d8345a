import { OVERRIDE_HEADER, type BoxStatus } from '@box/contract/boxes';
import { ACCEPTS, OVERRIDABLE, TRANSITIONS, type AccessOp, type BoxOperation } from '@box/contract/transitions';
import { conflict, forbidden } from '../../kernel/domain-errors.js';

export type { AccessOp };

export function assertAccepts(op: BoxOperation, status: BoxStatus, boxId: string): void {
  if (!(ACCEPTS[op] as readonly BoxStatus[]).includes(status)) {
    throw conflict(
      `Cannot ${op.replace('_', ' ')} box ${boxId} while it is ${status}; this needs the box to be ${ACCEPTS[op].join(' or ')}.`,
      'failed_precondition',
    );
  }
}

export function assertTransition(from: BoxStatus, to: BoxStatus): void {
  if (!TRANSITIONS[from].includes(to)) throw new Error(`illegal box transition ${from} → ${to}`);
}

/**
 * The one access check on a box of the caller's organization: reading is open to the
 * organization; a private box is operated by its creator, or by anyone else for an
 * overridable operation given a reason. Returns 'override' when the reason is what let
 * the caller in (the caller writes the audit entry), else 'allowed'; throws 403 otherwise.
 */
export function authorize(
  auth: { key: { id: string } },
  box: { box_id: string; visibility: string; created_by_key_id: string },
  op: AccessOp,
  reason: string | undefined,
): 'allowed' | 'override' {
  if (op === 'read' || box.visibility !== 'private' || box.created_by_key_id === auth.key.id) return 'allowed';
  if (!(OVERRIDABLE as readonly string[]).includes(op)) {
    throw forbidden(`Box ${box.box_id} is private; only the key that created it may ${op.replace('_', ' ')} it (no override).`);
  }
  if (reason === undefined) {
    throw forbidden(`Box ${box.box_id} is private to the key that created it; to operate it anyway, send a reason in the ${OVERRIDE_HEADER} header.`);
  }
  return 'override';
}
