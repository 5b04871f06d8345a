/**
 * What other areas may use of the boxes area besides its module (module.ts): types and
 * narrow ports. The box repository and the runtime stay inside boxes/; other areas look
 * boxes up, publish ports and read a VM's figures through these.
 */
import type { BoxesRepo, BoxRecord } from './boxes-repo.js';
import type { BoxRuntime } from './runtime-port.js';

export type { BoxRecord };

/** Looking boxes up: any organization, terminated ones included for `get`. */
export interface BoxLookup {
  get(boxId: string): Promise<BoxRecord | undefined>;
  /** Every box that is not terminated. */
  live(): Promise<BoxRecord[]>;
}

/**
 * The boxes' side of HTTP policies, for the policies area (built before the boxes area,
 * so it gets this slice of the repository from the wiring).
 */
export type BoxPolicyLinks = Pick<BoxesRepo, 'withPolicy' | 'releasePolicy'>;

/** Published ports of a running VM (optional: a runtime that cannot forward live applies them at the next start). */
export type BoxForwards = Pick<BoxRuntime, 'addForward' | 'removeForward'>;

/** A running VM's CPU and memory figures and a box's disk use. */
export type BoxMeters = Pick<BoxRuntime, 'sample' | 'diskUsageBytes'>;

export type { BoxAccess } from './box-access.js';
export type { ExecSession } from './exec-session.js';
export type { GuestSetup } from './guest-setup.js';
/** The runtime port: what boxes need of a VM runtime (runtime/ implements it with QEMU). */
export type {
  BoxRuntime,
  ExecResult,
  GuestAgent,
  GuestExec,
  GuestFile,
  ImageResolver,
  Progress,
  TemplateInfo,
  TemplatePort,
  TemplateShape,
  TemplateWarmup,
  VmConfig,
} from './runtime-port.js';
export { RuntimeError } from './runtime-port.js';
export { UnknownImage } from './unknown-image.js';
export type { NewBox } from './lifecycle/new-box.js';
