import type { BoxStatus } from './boxes.js';

/*
 * The box state machine as data, shared by the service (which enforces it in
 * boxes/transitions.ts) and the renderer (which greys out what would answer 409).
 */

/** Every legal status change. Anything else is a bug in the caller, not a user error. */
export const TRANSITIONS: Record<BoxStatus, readonly BoxStatus[]> = {
  creating: ['running', 'failed', 'terminating'],
  running: ['paused', 'sleeping', 'terminating', 'failed', 'interrupted_restorable', 'running'],
  paused: ['running', 'terminating', 'failed', 'interrupted_restorable'],
  sleeping: ['running', 'terminating', 'failed', 'interrupted_restorable'],
  interrupted_restorable: ['running', 'terminating', 'failed'],
  // a failed box keeps its disk: a reboot starts it afresh from it (issue 28)
  failed: ['interrupted_restorable', 'terminating'],
  terminating: ['terminated', 'failed'],
  terminated: [],
};

/** The states each operation accepts; an operation in any other state answers 409 conflict_error. */
export const ACCEPTS = {
  pause: ['running'],
  resume: ['running', 'paused', 'sleeping', 'interrupted_restorable'],
  sleep: ['running', 'sleeping'],
  wake_at: ['running', 'paused', 'sleeping', 'interrupted_restorable'],
  // a paused or sleeping box's saved memory is dropped: it boots from its disk (E2B's filesystem-only pause)
  reboot: ['running', 'paused', 'sleeping', 'interrupted_restorable', 'failed'],
  upgrade: ['running', 'paused', 'sleeping', 'interrupted_restorable'],
  terminate: ['creating', 'running', 'paused', 'sleeping', 'failed', 'interrupted_restorable'],
  checkpoint: ['running', 'paused', 'sleeping'],
  // a failed box forks from its last checkpoint (issue 28)
  fork: ['running', 'paused', 'sleeping', 'failed'],
  /** ours (issue 29): back to a checkpoint of the box; what it holds now is lost */
  restore: ['running', 'paused', 'sleeping', 'interrupted_restorable', 'failed'],
  exec: ['running', 'sleeping', 'interrupted_restorable'],
  // a failed box's files are served from its stopped disk (boxes/lifecycle/maintenance.ts)
  files: ['running', 'sleeping', 'interrupted_restorable', 'failed'],
  auto_sleep: ['creating', 'running', 'paused', 'sleeping', 'interrupted_restorable'],
  http_policy: ['creating', 'running', 'paused', 'sleeping', 'interrupted_restorable', 'failed'],
  listeners: ['running', 'paused', 'sleeping', 'interrupted_restorable'],
} as const satisfies Record<string, readonly BoxStatus[]>;
export type BoxOperation = keyof typeof ACCEPTS;

/**
 * Spec, Authentication 5: on a private box someone else created, these operations accept
 * an operator override (a reason, written to the audit log); every other operation on
 * such a box stays with the key that created it.
 */
export const OVERRIDABLE = [
  'pause',
  'resume',
  'sleep',
  'wake_at',
  'upgrade',
  'reboot',
  'terminate',
  'delete_checkpoint',
  'http_policy',
  'exec',
  'files',
  'auto_sleep',
] as const;
/** What a caller may ask to do with a box, for the access check (a superset of ACCEPTS' keys). */
export type AccessOp = 'read' | (typeof OVERRIDABLE)[number] | 'listeners' | 'domains' | 'checkpoint' | 'from_checkpoint' | 'fork' | 'cron';
