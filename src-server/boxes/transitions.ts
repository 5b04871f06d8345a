import { OVERRIDE_HEADER, type BoxStatus } from '../contract/boxes.js';
import { conflict, forbidden } from '../http/errors.js';

/** Every legal status change. Anything else is a bug in the caller, not a user error. */
export const TRANSITIONS: Record<BoxStatus, readonly BoxStatus[]> = {
  creating: ['running', 'failed', 'terminating'],
  running: ['paused', 'sleeping', 'terminating', 'failed', 'interrupted_restorable', 'running'],
  paused: ['running', 'terminating', 'failed', 'interrupted_restorable'],
  sleeping: ['running', 'terminating', 'failed', 'interrupted_restorable'],
  interrupted_restorable: ['running', 'terminating', 'failed'],
  failed: ['terminating'],
  terminating: ['terminated', 'failed'],
  terminated: [],
};

/** The states each operation accepts; an operation in any other state answers 409 conflict_error. */
export const ACCEPTS = {
  pause: ['running'],
  resume: ['running', 'paused', 'sleeping', 'interrupted_restorable'],
  sleep: ['running', 'sleeping'],
  wake_at: ['running', 'paused', 'sleeping', 'interrupted_restorable'],
  reboot: ['running', 'interrupted_restorable'],
  upgrade: ['running', 'paused', 'sleeping', 'interrupted_restorable'],
  terminate: ['creating', 'running', 'paused', 'sleeping', 'failed', 'interrupted_restorable'],
  checkpoint: ['running', 'paused', 'sleeping'],
  fork: ['running', 'paused', 'sleeping'],
  exec: ['running', 'sleeping', 'interrupted_restorable'],
  files: ['running', 'sleeping', 'interrupted_restorable'],
  auto_sleep: ['creating', 'running', 'paused', 'sleeping', 'interrupted_restorable'],
  http_policy: ['creating', 'running', 'paused', 'sleeping', 'interrupted_restorable', 'failed'],
  listeners: ['running', 'paused', 'sleeping', 'interrupted_restorable'],
} as const satisfies Record<string, readonly BoxStatus[]>;
export type BoxOperation = keyof typeof ACCEPTS;

export function assertAccepts(op: BoxOperation, status: BoxStatus, boxId: string): void {
  if (!(ACCEPTS[op] as readonly BoxStatus[]).includes(status)) {
    throw conflict(`Cannot ${op.replace('_', ' ')} box ${boxId} while it is ${status}; this needs the box to be ${ACCEPTS[op].join(' or ')}.`, 'failed_precondition');
  }
}

export function assertTransition(from: BoxStatus, to: BoxStatus): void {
  if (!TRANSITIONS[from].includes(to)) throw new Error(`illegal box transition ${from} → ${to}`);
}

/**
 * Spec, Authentication 5: on a private box someone else created, these operations accept
 * an operator override (a reason, written to the audit log); every other operation on
 * such a box stays with the key that created it.
 */
export const OVERRIDABLE = ['pause', 'resume', 'sleep', 'wake_at', 'upgrade', 'reboot', 'terminate', 'delete_checkpoint', 'http_policy', 'exec', 'files', 'auto_sleep'] as const;
/** What a caller may ask to do with a box, for the access check (a superset of ACCEPTS' keys). */
export type AccessOp = 'read' | (typeof OVERRIDABLE)[number] | 'listeners' | 'domains' | 'checkpoint' | 'from_checkpoint' | 'fork' | 'cron';

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
