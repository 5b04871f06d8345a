import type { Box } from '../../contract/boxes.js';
import type { BoxOperation } from '../../contract/transitions.js';
import type { BoxesRepo, BoxRecord } from '../boxes-repo.js';
import type { BoxRuntime, StartResult, VmConfig } from '../runtime-port.js';

/**
 * The lifecycle's core, which BoxService (the owner of the box lock) hands to the
 * checkpoint service it builds; nothing outside boxes/lifecycle/ sees it.
 */
export interface LifecycleCore {
  repo: BoxesRepo;
  runtime: Pick<BoxRuntime, 'checkpoint' | 'cloneFromCheckpoint' | 'deleteCheckpoint' | 'destroy'>;
  withLock<T>(boxId: string, fn: () => Promise<T>): Promise<T>;
  /** Re-reads the box (under the lock) and checks the operation is legal in its state. */
  fresh(box: BoxRecord, op: BoxOperation): Promise<BoxRecord>;
  /** Starts a VM for the box and records the outcome. */
  boot(box: BoxRecord, start: () => Promise<void | StartResult>, failure?: string, operation?: string): Promise<Box>;
  vmConfig(box: BoxRecord): Promise<VmConfig>;
}
