import { BoxCode, type CodeEvent, type CodeExecution, type RunCodeOptions } from './code.js';
import { BoxDesktop } from './desktop.js';
import { collect, ExecStream, type ExecOptions, type ExecResult } from './exec.js';
import { BoxFiles } from './files.js';
import type { Http } from './http.js';
import { op } from './ops.js';
import type {
  AutoSleep,
  BoxInfo,
  BoxStatus,
  Checkpoint,
  CreateCronBody,
  CreateListenerBody,
  CronJob,
  CronRun,
  EgressLogRow,
  ExecInfo,
  HttpPolicy,
  Listener,
  PolicyDetached,
} from './types.js';

/** Cron jobs of one box. */
export class BoxCron {
  /** @internal */
  constructor(
    private readonly http: Http,
    private readonly boxId: string,
  ) {}
  private p(cron_id?: string) {
    return { box_id: this.boxId, ...(cron_id ? { cron_id } : {}) } as { box_id: string; cron_id: string };
  }
  /** Runs `command` on a five-field cron `schedule` (in `timezone`, default UTC). */
  create(body: CreateCronBody): Promise<CronJob> {
    return op(this.http, 'POST /v1/boxes/:box_id/cron', { params: this.p(), body, idempotencyKey: crypto.randomUUID() });
  }
  async list(): Promise<CronJob[]> {
    return (await op(this.http, 'GET /v1/boxes/:box_id/cron', { params: this.p(), query: { limit: 100 } })).data;
  }
  get(cronId: string): Promise<CronJob> {
    return op(this.http, 'GET /v1/boxes/:box_id/cron/:cron_id', { params: this.p(cronId) });
  }
  delete(cronId: string): Promise<CronJob> {
    return op(this.http, 'DELETE /v1/boxes/:box_id/cron/:cron_id', { params: this.p(cronId) });
  }
  /** Runs the job now and answers its run. */
  run(cronId: string): Promise<CronRun> {
    return op(this.http, 'POST /v1/boxes/:box_id/cron/:cron_id/run', { params: this.p(cronId) });
  }
  async runs(cronId: string): Promise<CronRun[]> {
    return (await op(this.http, 'GET /v1/boxes/:box_id/cron/:cron_id/runs', { params: this.p(cronId) })).data;
  }
}

/**
 * One box: its API description in `info` (as of the last call that answered it; `refresh()`
 * reads it again), commands, files, the code interpreter, lifecycle, checkpoints and forks.
 */
export class Box {
  readonly files: BoxFiles;
  readonly cron: BoxCron;
  readonly code: BoxCode;
  /** The screen of a desktop box (`image: 'desktop'`). */
  readonly desktop: BoxDesktop;

  /** @internal */
  constructor(
    private readonly http: Http,
    public info: BoxInfo,
  ) {
    this.files = new BoxFiles(http, info.box_id);
    this.cron = new BoxCron(http, info.box_id);
    this.code = new BoxCode(http, info.box_id);
    this.desktop = new BoxDesktop(http, info.box_id);
  }

  get id(): string {
    return this.info.box_id;
  }
  get name(): string {
    return this.info.name;
  }
  get status(): BoxStatus {
    return this.info.status;
  }

  private get params() {
    return { box_id: this.info.box_id };
  }
  private set(info: BoxInfo): this {
    this.info = info;
    return this;
  }

  /** Reads the box again. */
  async refresh(): Promise<this> {
    return this.set(await op(this.http, 'GET /v1/boxes/:box_id', { params: this.params }));
  }

  // commands

  /** Runs a command to its end: stdout, stderr, exitCode. A string runs under /bin/sh -c; an array runs as argv. */
  exec(command: string | string[], o: ExecOptions = {}): Promise<ExecResult> {
    return collect(new ExecStream(this.http, this.id, command, o));
  }

  /** Runs a command and streams its output: `for await (const ev of box.execStream(cmd))`, then `await stream.wait()`. */
  execStream(command: string | string[], o: ExecOptions = {}): ExecStream {
    return new ExecStream(this.http, this.id, command, o);
  }

  /** Commands run in this box, latest first. */
  async execs(): Promise<ExecInfo[]> {
    return (await op(this.http, 'GET /v1/boxes/:box_id/exec', { params: this.params })).data;
  }

  // the code interpreter

  /** Runs code in the box's code interpreter (Python unless `language` or `context` says otherwise). */
  runCode(code: string, o: RunCodeOptions = {}): Promise<CodeExecution> {
    return this.code.run(code, o);
  }
  /** Like runCode, yielding stdout, stderr, results and errors as they happen. */
  runCodeStream(code: string, o: RunCodeOptions = {}): AsyncGenerator<CodeEvent> {
    return this.code.runStream(code, o);
  }

  // lifecycle

  async pause(): Promise<this> {
    return this.set(await op(this.http, 'POST /v1/boxes/:box_id/pause', { params: this.params }));
  }
  async resume(): Promise<this> {
    return this.set((await op(this.http, 'POST /v1/boxes/:box_id/resume', { params: this.params })).box);
  }
  /** Saves the box to disk and stops its VM; `wakeAt` (ISO time) wakes it then. */
  async sleep(o: { wakeAt?: string | Date } = {}): Promise<this> {
    const wake_at = o.wakeAt instanceof Date ? o.wakeAt.toISOString() : o.wakeAt;
    return this.set(await op(this.http, 'POST /v1/boxes/:box_id/sleep', { params: this.params, body: { wake_at } }));
  }
  /** Sets (or with null clears) when a sleeping box wakes. */
  async wakeAt(at: string | Date | null): Promise<this> {
    const wake_at = at instanceof Date ? at.toISOString() : at;
    return this.set(await op(this.http, 'POST /v1/boxes/:box_id/wake_at', { params: this.params, body: { wake_at } }));
  }
  async setAutoSleep(body: AutoSleep): Promise<this> {
    return this.set(await op(this.http, 'POST /v1/boxes/:box_id/auto_sleep', { params: this.params, body }));
  }
  async reboot(): Promise<this> {
    return this.set(await op(this.http, 'POST /v1/boxes/:box_id/reboot', { params: this.params }));
  }
  async upgrade(): Promise<this> {
    return this.set(await op(this.http, 'POST /v1/boxes/:box_id/upgrade', { params: this.params }));
  }
  async terminate(): Promise<this> {
    return this.set(await op(this.http, 'POST /v1/boxes/:box_id/terminate', { params: this.params }));
  }

  // checkpoints and forks

  /** Saves a checkpoint of the box (disk and memory). */
  checkpoint(o: { name?: string; ttlSeconds?: number } = {}): Promise<Checkpoint> {
    return op(this.http, 'POST /v1/boxes/:box_id/checkpoint', {
      params: this.params,
      body: { name: o.name, ttl_seconds: o.ttlSeconds },
      idempotencyKey: crypto.randomUUID(),
    });
  }
  /** A new box from this one's current state (running, with its memory). */
  async fork(o: { name: string; idempotencyKey?: string }): Promise<Box> {
    return (await this.forkMany({ ...o, count: 1 })).boxes[0]!;
  }
  /** `count` new boxes from this one's state, named `name`, `name-2`, ...; one checkpoint for all. */
  async forkMany(o: { name: string; count: number; idempotencyKey?: string }): Promise<{ checkpointId: string; boxes: Box[] }> {
    const r = await op(this.http, 'POST /v1/boxes/:box_id/fork', {
      params: this.params,
      body: { name: o.name, count: o.count },
      idempotencyKey: o.idempotencyKey ?? crypto.randomUUID(),
    });
    return { checkpointId: r.checkpoint_id, boxes: r.boxes.map((b) => new Box(this.http, b)) };
  }
  async checkpoints(): Promise<Checkpoint[]> {
    return (await op(this.http, 'GET /v1/box-checkpoints', { query: { box_id: this.id } })).data;
  }
  /**
   * Takes this box back to one of its own checkpoints, disk and memory, and runs it from
   * there (beyond the spec). What the box holds now is lost: checkpoint first to keep it.
   */
  async restoreTo(checkpointId: string): Promise<this> {
    return this.set(await op(this.http, 'POST /v1/boxes/:box_id/restore', { params: this.params, body: { checkpoint_id: checkpointId } }));
  }

  // network and policy

  /** The HTTP policy attached to the box (NotFoundError when none). */
  policy(): Promise<HttpPolicy> {
    return op(this.http, 'GET /v1/boxes/:box_id/http-policy', { params: this.params });
  }
  /** Attaches an HTTP policy (by id) to the box. */
  setPolicy(policyId: string): Promise<HttpPolicy> {
    return op(this.http, 'PUT /v1/boxes/:box_id/http-policy', { params: this.params, body: { policy_id: policyId } });
  }
  detachPolicy(): Promise<PolicyDetached> {
    return op(this.http, 'DELETE /v1/boxes/:box_id/http-policy', { params: this.params });
  }
  /** Publishes a port of the box on this machine. */
  publish(body: CreateListenerBody): Promise<Listener> {
    return op(this.http, 'POST /v1/boxes/:box_id/listeners', { params: this.params, body });
  }
  async listeners(): Promise<Listener[]> {
    return (await op(this.http, 'GET /v1/boxes/:box_id/listeners', { params: this.params })).data;
  }
  unpublish(guestPort: number): Promise<Listener> {
    return op(this.http, 'DELETE /v1/boxes/:box_id/listeners/:guest_port', { params: { ...this.params, guest_port: guestPort } });
  }
  /** Requests the box made through its egress proxy, newest first. */
  async egressLog(o: { limit?: number; offset?: number } = {}): Promise<EgressLogRow[]> {
    return (await op(this.http, 'GET /v1/boxes/:box_id/egress-log', { params: this.params, query: o })).data;
  }
}
