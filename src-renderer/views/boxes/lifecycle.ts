import type { BoxStatus } from '../../../src-server/contract/boxes.js';
import { ACCEPTS } from '../../../src-server/contract/transitions.js';

/** Whether an operation is allowed in a status: the service's own table (409 otherwise). */
export const allows = (op: keyof typeof ACCEPTS, status: BoxStatus) => (ACCEPTS[op] as readonly string[]).includes(status);

export const ACTIONS = [
  { op: 'pause', label: 'Pause', hint: 'Save memory and stop the VM; wakes only on resume' },
  { op: 'resume', label: 'Resume', hint: 'Run again from where it stopped' },
  { op: 'sleep', label: 'Sleep', hint: 'Like pause, but wakes on exec, files, ingress or cron' },
  { op: 'reboot', label: 'Reboot', hint: 'Restart the guest' },
  { op: 'terminate', label: 'Terminate', hint: 'Stop and delete the box' },
] as const;

/** Resume on a running box answers `already_running`: offer it only where it changes something. */
export const actionEnabled = (op: (typeof ACTIONS)[number]['op'], status: BoxStatus) =>
  op === 'resume' ? status !== 'running' && allows('resume', status) : allows(op, status);
