/**
 * What the E2B area uses of other areas, as narrow ports (module.ts adapts the real
 * services): boxes, checkpoints, exec, files and apps, each only through its public face.
 */
import type { Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { z } from 'zod';
import type { E2BVolumeEntryStat } from '@box/contract/e2b-rest';
import type { Box, Checkpoint, CreateBoxBody } from '@box/contract/boxes';
import type { CodeLanguage } from '@box/contract/code';
import type { ExecBody } from '@box/contract/exec';
import type { PolicyDocument } from '@box/contract/policies';
import type { Volume } from '@box/contract/volumes';
import type { MeterSample } from './metrics.js';
import type { Principal } from '../../kernel/principal.js';
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
  /** Stops the VM and cold-boots it from its disk (a filesystem-only resume). */
  reboot(box: BoxRecord): Promise<unknown>;
  /** Attaches (null: detaches) an HTTP policy; the caller has checked both. */
  setHttpPolicy(boxId: string, policyId: string | null): Promise<unknown>;
}

/** Box's HTTP (egress) policies, as E2B's network rules use them. */
export interface PoliciesPort {
  create(orgId: string, name: string, document: PolicyDocument): Promise<{ id: string }>;
  update(orgId: string, id: string, document: PolicyDocument): Promise<unknown>;
  delete(orgId: string, id: string): Promise<unknown>;
}

/** Box's per-box meters (usage/), read for E2B's metrics. */
export interface MetricsPort {
  samples(boxId: string, fromMs: number, toMs: number): Promise<MeterSample[]>;
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
  /**
   * user: as that user of the box (its permissions; what is created is theirs). chownToUser: made
   * as root, what is created given to `user` (envd's upload). keepMode: a file already there keeps
   * its mode (envd's upload). xattrs: set on the new file
   * (`xattrsSet`: how many its file system kept).
   */
  write(
    box: BoxRecord,
    path: string,
    opts: { mode: number; createParents: boolean; user?: string; chownToUser?: boolean; keepMode?: boolean; xattrs?: Record<string, string> },
    source: Readable,
  ): Promise<{ sizeBytes: number; xattrsSet?: number }>;
  read(box: BoxRecord, path: string, opts?: { user?: string }): Promise<{ mode: number; size: number | null; stream: Readable }>;
}

export interface AppsPort {
  /** The organization's app of this name, created when missing. */
  find(orgId: string, name: string, mint: boolean): Promise<{ id: string }>;
}

export interface ForkPort {
  fork(auth: Principal, box: BoxRecord, name: string, count: number): Promise<{ checkpoint_id: string; boxes: NewBox[] }>;
}

/** The code interpreter's service (issue 25; docs: /work code API), as the E2B area uses it. */
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
  /** `defaults`: the default contexts of these languages are listed also before they start (in `cwd`). */
  listContexts(box: BoxRecord, opts?: { defaults?: CodeLanguage[]; cwd?: string }): Promise<CodeContextView[]>;
  deleteContext(box: BoxRecord, contextId: string): Promise<unknown>;
  restartContext(box: BoxRecord, contextId: string): Promise<CodeContextView>;
  run(
    box: BoxRecord,
    body: { code: string; language?: CodeLanguage; context_id?: string; env?: Record<string, string> },
    onEvent: (e: CodeEventView) => void,
    /** cwd: where a default context starts (or moves before its first cell); signal: aborting it interrupts the cell. */
    opts?: { cwd?: string; signal?: AbortSignal },
  ): Promise<{ execution_count: number | null; error: unknown }>;
}

/** What Box's image builder (images/) reports while it builds. */
export type ImageBuildEvent =
  | { type: 'step'; index: number; total: number; text: string; cached: boolean }
  | { type: 'output'; stream: 'stdout' | 'stderr'; text: string }
  | { type: 'info'; text: string };

/** Box's image builder (Boxfile steps in builder VMs) and its store, as E2B's template builds use them. */
export interface ImageBuildPort {
  build(o: { boxfile: string; context: string; name: string; memoryMib?: number; onEvent: (e: ImageBuildEvent) => void }): Promise<unknown>;
  has(name: string): Promise<boolean>;
  /** Deletes an image (409 while a box uses it). */
  remove(orgId: string, name: string): Promise<unknown>;
}

/** Box's secrets (secrets/), as E2B's `/secrets` keeps its values there: metadata out, never a value. */
export interface SecretsPort {
  meta(orgId: string, name: string): Promise<{ name: string; created_at: string; updated_at: string } | undefined>;
  put(orgId: string, name: string, value: string): Promise<{ name: string; created_at: string; updated_at: string }>;
  delete(orgId: string, name: string): Promise<unknown>;
  list(orgId: string, limit: number, offset: number): Promise<{ rows: Array<{ name: string; created_at: string; updated_at: string }>; total: number }>;
}

/** Box's volumes (volumes/), as E2B's `/volumes` and `volumeMounts` use them. */
export interface VolumesPort {
  /** A ready volume of the organization, by id or (`byName`) by name. */
  get(orgId: string, volumeId: string): Promise<Volume | undefined>;
  byName(orgId: string, name: string): Promise<Volume | undefined>;
  list(orgId: string): Promise<Volume[]>;
  findOrCreate(orgId: string, name: string): Promise<Volume>;
  /** 409 while a live box mounts it. */
  delete(orgId: string, volumeId: string): Promise<unknown>;
  /** The volume's files (E2B's volume content API), confined to its root; 404 unless ready. */
  content(orgId: string, volumeId: string): Promise<VolumeContentPort>;
}

/** One entry of a volume with owner and times: E2B's VolumeEntryStat. */
type VolumeContentEntry = z.infer<typeof E2BVolumeEntryStat>;
interface ContentAttrs {
  mode?: number;
  uid?: number;
  gid?: number;
}
/** Paths as segments (volumes' `volumeSegments`: no "..", relative to the root). */
export interface VolumeContentPort {
  stat(segs: string[]): Promise<VolumeContentEntry>;
  list(segs: string[], depth: number): Promise<VolumeContentEntry[]>;
  makeDir(segs: string[], attrs: ContentAttrs, force: boolean): Promise<VolumeContentEntry>;
  writeFile(segs: string[], body: Readable, attrs: ContentAttrs, force: boolean, signal?: AbortSignal): Promise<VolumeContentEntry>;
  readFile(segs: string[]): Promise<{ handle: FileHandle; stat: Stats }>;
  remove(segs: string[]): Promise<void>;
  update(segs: string[], attrs: ContentAttrs): Promise<VolumeContentEntry>;
}
