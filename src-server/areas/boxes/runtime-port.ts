import type { Readable } from 'node:stream';

/**
 * What the box domain needs from a VM runtime. The QEMU runtime implements it for real;
 * a fake implements it for fast route tests. Contracts:
 * - create/restore/coldBoot/cloneFromCheckpoint resolve only once the guest agent answers.
 * - save leaves no process behind: memory and devices are on disk, restore continues exactly there.
 * - checkpoint works on a running box (briefly stopped) and on a saved one (no process started).
 * - Every method may reject with RuntimeError; the domain turns that into the box's status.
 */
export interface BoxRuntime {
  readonly name: string;
  accelerator(): Promise<string>;
  /** Why that accelerator, once accelerator() resolved (for the service log). */
  acceleratorReason?(): string | undefined;
  /**
   * Starts a new box. A start (create, restore, cloneFromCheckpoint, coldBoot) that answers
   * `{ filesWritten: true }` has put cfg.files in place itself (a warm clone or a restored
   * one may hold them already); otherwise the caller writes them.
   */
  create(cfg: VmConfig, onProgress?: (p: Progress) => void): Promise<void | StartResult>;
  agent(boxId: string): Promise<GuestAgent>;
  isAlive(boxId: string): Promise<boolean>;
  /**
   * Re-attaches to a VM that outlived the previous service process, only when it runs (or
   * could be continued) and its agent answers; otherwise no VM is left and `adopted` is
   * false. `note` says what was found, for the service log.
   */
  adopt(cfg: VmConfig): Promise<{ adopted: boolean; note: string }>;
  save(boxId: string): Promise<void>;
  restore(cfg: VmConfig): Promise<void | StartResult>;
  /** Boots the box's existing disk from scratch (reboot, upgrade, recovery after a crash). */
  coldBoot(cfg: VmConfig): Promise<void | StartResult>;
  stop(boxId: string): Promise<void>;
  destroy(boxId: string): Promise<void>;
  /**
   * onSaved: called once the checkpoint's files are complete (a clone may start from it),
   * while a running box is still being resumed; the promise resolves after that.
   */
  checkpoint(boxId: string, checkpointId: string, running: boolean, onSaved?: () => void): Promise<{ sizeBytes: number }>;
  /**
   * A new box from a checkpoint (a fork): its own hostname, machine-id and RNG state. With
   * `sameBox` (restore in place) the box keeps its machine-id, which the checkpoint holds.
   */
  cloneFromCheckpoint(checkpointId: string, cfg: VmConfig, opts?: { sameBox?: boolean }): Promise<void | StartResult>;
  deleteCheckpoint(checkpointId: string): Promise<void>;
  /** Called when a VM dies without being asked to (killed, guest panic, agent gone). */
  onUnexpectedExit(cb: (boxId: string, reason: { kind: 'killed' | 'panic' | 'agent_lost'; message: string }) => void): void;
  diskUsageBytes(boxId: string): number;
  /** The file the box's serial console is appended to (it may not exist yet); read by logs/console-service.ts. */
  consoleLog?(boxId: string): string;
  /** Resource use of a running VM, for metrics. */
  sample?(boxId: string): Promise<{ cpuSeconds: number; rssBytes: number } | undefined>;
  /** Publishes a guest port on host loopback in a running VM (live; keep it in VmConfig.forwards for restarts). */
  addForward?(boxId: string, hostPort: number, guestPort: number): Promise<void>;
  /** Withdraws a forward added by addForward or present at start. */
  removeForward?(boxId: string, hostPort: number): Promise<void>;
  close(): Promise<void>;
  /** Warm templates boxes are cloned from (a runtime without them cold-boots every box). */
  readonly templates?: TemplatePort;
  /** Where boxes of images other than the built-in one get their root disk (images area). */
  setImageResolver?(resolve: ImageResolver): void;
  /** A step every template's guest runs before it is saved (areas built after boxes, e.g. code/). */
  addTemplateWarmup?(w: TemplateWarmup): void;
}

/**
 * Work done once in a template's guest so every clone starts with it done (the code
 * interpreter's started kernel). A failing step leaves the template as it would be without it.
 */
export interface TemplateWarmup {
  /** Goes into the template id: a changed step makes new templates. */
  key: string;
  run(guest: {
    sh(script: string, timeoutMs: number): Promise<{ exitCode: number | null; stdout: string; stderr: string }>;
    writeFile(path: string, content: Buffer): Promise<void>;
  }): Promise<void>;
  /**
   * Run in every warm-pool clone of the template before a box takes it: the guest code a
   * box's first use of the area runs, run once so QEMU has translated it (its translation
   * cache is not part of the saved state: under TCG each clone translates anew). It must
   * leave nothing a box could see; a failure is ignored.
   */
  clone?(guest: GuestAgent): Promise<void>;
  /**
   * The TCG translation cache (MiB) VMs of this image, or of images built FROM it, need for
   * the work the step starts (the desktop's browser: ~450 MiB of translated code, which a
   * 64 MiB cache throws away again and again). Ignored under KVM/HVF; BOX_TCG_TB_SIZE wins.
   */
  tcgCache?: { image: string; mib: number };
}

/** The root disk of a named image and the names it was built from (itself first), or undefined when the name is unknown. */
export type ImageResolver = (name: string) => Promise<{ rootfs: string; format: 'raw' | 'qcow2'; lineage: string[] } | undefined>;

/** The machine a template is booted as: boxes clone the template of their own shape. */
export interface TemplateShape {
  image: string;
  vcpus: number;
  memoryMib: number;
  diskGib: number;
  /**
   * With spare 9p slots for volume mounts (a template of its own: the 8 extra devices cost
   * every clone ~12 MiB of idle memory, which boxes without volumes do not pay).
   */
  volumeSlots?: boolean;
}

export interface TemplateInfo {
  templateId: string;
  shape: TemplateShape;
  state: 'building' | 'ready' | 'stale' | 'failed';
  /** 0–100 while building. */
  progress?: { phase: string; percent: number };
  error?: string;
  builtAt: string | null;
  bytes: number;
  /** Boxes cloned from it that still exist. */
  boxes: number;
  /** Restored, warmed clones waiting for a create (the warm pool). */
  warmClones?: number;
  /** QEMUs started ahead for restores of its boxes (restore spares). */
  restoreSpares?: number;
}

export interface TemplatePort {
  list(): Promise<TemplateInfo[]>;
  /** in_use while a box or checkpoint builds on it; building while it is being built. */
  remove(templateId: string): Promise<'removed' | 'in_use' | 'not_found' | 'building'>;
  /** Builds the template of this shape unless it exists (resolves when ready). */
  prepare(shape: TemplateShape): Promise<void>;
}

export interface VmConfig {
  boxId: string;
  hostname: string;
  image: string;
  vcpus: number;
  memoryMib: number;
  diskGib: number;
  mounts: { tag: string; hostPath: string; guestPath: string }[];
  /** Published guest ports, forwarded from host loopback ports. */
  forwards: { hostPort: number; guestPort: number }[];
  /** Host port of the egress proxy; the guest's only way out. */
  proxyPort?: number;
  /** Files the box gets on every start (guest-setup.ts), same content each time. */
  files?: GuestFile[];
}

/** What a start tells the box domain (all optional: a runtime may answer nothing). */
export interface StartResult {
  /** cfg.files are in place (the caller need not write them). */
  filesWritten?: true;
  /** What the VM came from: warm_pool, template, saved_state, checkpoint, boot. */
  from?: string;
}

export interface GuestFile {
  path: string;
  content: string | Buffer;
  mode: number;
}

export interface Progress {
  phase: string;
  percent?: number;
  message?: string;
}

export interface EntryInfo {
  name: string;
  type: 'file' | 'directory' | 'symlink' | 'other';
  size: number;
  modified_time: number;
  mode: number;
}

interface ExecOptions {
  argv: string[];
  env?: Record<string, string>;
  cwd?: string;
  user?: string;
  tty?: { cols: number; rows: number };
  stdin?: boolean;
  timeoutMs?: number;
  /** A port in the box to connect to instead, argv running when nothing listens (guest/agent-exec.ts). */
  connectPort?: number;
}

export interface ExecResult {
  exitCode: number | null;
  signal: number | null;
  timedOut: boolean;
}

export interface GuestExec {
  stdout: Readable;
  stderr: Readable;
  writeStdin(buf: Buffer): Promise<void>;
  closeStdin(): void;
  signal(name: 'SIGTERM' | 'SIGKILL' | 'SIGINT' | 'SIGHUP'): void;
  resize(cols: number, rows: number): void;
  exit: Promise<ExecResult>;
}

export interface GuestAgent {
  exec(opts: ExecOptions): GuestExec;
  /** durable (default true): synced before the answer; false for files written again on every start. */
  /**
   * user: the file is written (read) as that user of the box, its permissions applying; default root.
   * chownToUser: written as root, the file and the directories it creates given to `user` (E2B's upload). keepMode: a
   * regular file already there keeps its mode (`mode` only for a new file; envd's upload).
   * xattrs: extended attributes set on the new file (xattrsSet: how many the file system kept).
   */
  writeFile(
    path: string,
    opts: {
      mode: number;
      createParents: boolean;
      durable?: boolean;
      user?: string;
      chownToUser?: boolean;
      keepMode?: boolean;
      xattrs?: Record<string, string>;
    },
    source: Readable,
  ): Promise<{ sizeBytes: number; xattrsSet?: number }>;
  readFile(path: string, opts?: { user?: string }): Promise<{ mode: number; size: number | null; stream: Readable }>;
  stat(path: string, opts: { follow: boolean }): Promise<EntryInfo>;
  /** The entries sorted by name (byte order), in batches as the guest sends them: a listing of any size is passed on, not held. */
  listDir(path: string): AsyncGenerator<EntryInfo[]>;
}

export class RuntimeError extends Error {
  constructor(
    message: string,
    readonly code: string = 'runtime_error',
  ) {
    super(message);
  }
}
