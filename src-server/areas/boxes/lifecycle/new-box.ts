import type { Box } from '@box/contract/boxes';

/**
 * What making a box (create, from a checkpoint, a fork's child) came to: it runs, or its VM
 * did not start and the box is `failed` with the reason. Either way the box exists (Box's API
 * answers it as it is); a caller that needs a running box is made by the type to look at
 * `started` rather than re-checking `status`.
 */
export type NewBox = { started: true; box: Box } | { started: false; box: Box; reason: string };

export const newBox = (box: Box): NewBox =>
  box.status === 'running' ? { started: true, box } : { started: false, box, reason: box.error_message ?? `the box is ${box.status}` };
