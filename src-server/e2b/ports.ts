/**
 * What the E2B area uses of other areas, as narrow ports (module.ts adapts the real
 * services): boxes, checkpoints, exec, files and apps, each only through its public face.
 */
import type { Readable } from 'node:stream';
import type { Box, Checkpoint, CreateBoxBody } from '../contract/boxes.js';
import type { ExecBody } from '../contract/exec.js';
import type { Principal } from '../core/principal.js';
import type { BoxRecord, ExecSession, NewBox } from '../boxes/ports.js';

export type { BoxRecord, ExecSession, NewBox, Principal };
/** Thrown by `BoxesPort.create` for an image Box does not have (E2B: an unknown template). */
export { UnknownImage } from '../boxes/ports.js';

export interface BoxesPort {
  get(boxId: string): Promise<BoxRecord | undefined>;
  create(auth: Principal, body: CreateBoxBody): Promise<NewBox>;
  pause(box: BoxRecord): Promise<Box>;
  resume(box: BoxRecord): Promise<unknown>;
  terminate(box: BoxRecord): Promise<Box>;
}

export interface CheckpointsPort {
  checkpoint(box: BoxRecord, opts: { name?: string }): Promise<Checkpoint>;
  get(orgId: string, id: string): Promise<Checkpoint & { org_id: string }>;
  list(orgId: string, q: { box_id?: string; name?: string }): Promise<Checkpoint[]>;
  delete(cp: Checkpoint & { org_id: string }): Promise<Checkpoint>;
  fromCheckpoint(auth: Principal, cp: Checkpoint & { org_id: string }, name: string, parent?: string | null): Promise<NewBox>;
}

export interface ExecPort {
  start(box: BoxRecord, body: ExecBody): Promise<ExecSession>;
}

export interface FilesPort {
  write(box: BoxRecord, path: string, opts: { mode: number; createParents: boolean }, source: Readable): Promise<{ sizeBytes: number }>;
  read(box: BoxRecord, path: string): Promise<{ mode: number; size: number | null; stream: Readable }>;
}

export interface AppsPort {
  /** The organization's app of this name, created when missing. */
  find(orgId: string, name: string, mint: boolean): Promise<{ id: string }>;
}

export interface ForkPort {
  fork(auth: Principal, box: BoxRecord, name: string, count: number): Promise<{ checkpoint_id: string; boxes: NewBox[] }>;
}

/** The code interpreter's service (issue 25; docs: /work code API), as the E2B area uses it. */
type CodeLanguage = 'python' | 'javascript' | 'bash';
export interface CodeContextView {
  id: string;
  language: CodeLanguage;
  cwd: string;
}
export type CodeResultView = Record<string, unknown> & { is_main_result: boolean };
type CodeEventView =
  | { type: 'stdout' | 'stderr'; data: string }
  | { type: 'result'; result: CodeResultView }
  | { type: 'error'; error: { name: string; value: string; traceback: string } }
  | { type: 'end'; execution: unknown };
export interface CodePort {
  createContext(box: BoxRecord, body: { language?: CodeLanguage; cwd?: string; env?: Record<string, string> }): Promise<CodeContextView>;
  listContexts(box: BoxRecord): Promise<CodeContextView[]>;
  deleteContext(box: BoxRecord, contextId: string): Promise<unknown>;
  restartContext(box: BoxRecord, contextId: string): Promise<CodeContextView>;
  run(
    box: BoxRecord,
    body: { code: string; language?: CodeLanguage; context_id?: string; env?: Record<string, string> },
    onEvent: (e: CodeEventView) => void,
  ): Promise<{ execution_count: number | null; error: unknown }>;
}
