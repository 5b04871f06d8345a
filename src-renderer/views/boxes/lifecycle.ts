import type { BoxStatus } from '@box/contract/boxes';
import { ACCEPTS } from '@box/contract/transitions';

/** Whether an operation is allowed in a status: the service's own table (409 otherwise). */
export const allows = (op: keyof typeof ACCEPTS, status: BoxStatus) => (ACCEPTS[op] as readonly string[]).includes(status);

export const ACTIONS = [
  { op: 'pause', label: 'Pause', hint: 'Save memory and stop the VM; wakes only on resume' },
  { op: 'resume', label: 'Resume', hint: 'Run again from where it stopped' },
  { op: 'sleep', label: 'Sleep', hint: 'Like pause, but wakes on exec, files, ingress or cron' },
  { op: 'reboot', label: 'Reboot', hint: 'Restart the guest' },
  { op: 'terminate', label: 'Terminate', hint: 'Stop and delete the box' },
] as const;

/**
 * The service accepts resume on a running box and sleep on a sleeping one (idempotent,
 * ACCEPTS): offer each only where it changes something.
 */
const NO_OP_IN: Partial<Record<(typeof ACTIONS)[number]['op'], BoxStatus>> = { resume: 'running', sleep: 'sleeping' };

export const actionEnabled = (op: (typeof ACTIONS)[number]['op'], status: BoxStatus) => NO_OP_IN[op] !== status && allows(op, status);

/**
 * A free fork name (box names are unique among the organization's boxes that are not
 * terminated): `<name>-fork`, then `<name>-fork-2`, …
 */
export function forkName(name: string, taken: ReadonlySet<string>): string {
  const base = `${name.slice(0, 55)}-fork`;
  if (!taken.has(base)) return base;
  for (let i = 2; ; i++) if (!taken.has(`${base}-${i}`)) return `${base}-${i}`;
}
