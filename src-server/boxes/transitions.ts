import type { BoxStatus } from '../contract/boxes.js';
import { conflict } from '../http/errors.js';

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
