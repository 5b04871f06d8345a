import type { AppBase } from '../app-context.js';
import { newId } from '../contract/common.js';
import type { ExecBody, ExecInfo } from '../contract/exec.js';
import { notFound } from '../core/domain-errors.js';
import type { BoxService } from './lifecycle/box-service.js';
import type { BoxRecord } from './boxes-repo.js';
import { ExecsRepo, toExecInfo } from './execs-repo.js';
import { ExecSession } from './exec-session.js';

/** Starts commands in boxes through the guest agent and keeps their sessions and records. */
export class ExecService {
  private live = new Map<string, ExecSession>();
  private repo: ExecsRepo;

  constructor(
    private app: AppBase,
    private boxes: BoxService,
  ) {
    this.repo = new ExecsRepo(app.db, app.config.dataDir);
  }

  /** At start: commands that were running when the service stopped cannot be re-attached. */
  recover(): Promise<void> {
    return this.repo.failRunning(new Date().toISOString());
  }

  close(): Promise<void> {
    return this.repo.close();
  }

  /** Starts (or, for a repeated idempotency_key, re-attaches to) a command. */
  async start(box: BoxRecord, body: ExecBody): Promise<ExecSession> {
    if (body.idempotency_key) {
      const prior = await this.repo.idByIdempotencyKey(box.box_id, body.idempotency_key);
      if (prior) return this.session(box.box_id, prior);
    }
    // Both callers (the route, the cron runner) read `box` just before, in this same turn: a
    // running box needs no second and third read (ensureRunning), only its activity noted.
    let running = box;
    if (box.status === 'running') await this.boxes.touch(box.box_id);
    else running = await this.boxes.ensureRunning(box, 'exec');
    const agent = await this.boxes.agent(running.box_id);
    const argv = typeof body.command === 'string' ? ['/bin/sh', '-c', body.command] : body.command;
    const defaults = this.boxes.guestSetup.defaults(running);
    const guest = agent.exec({
      argv,
      env: { ...this.boxes.guestSetup.env(running), ...body.env },
      cwd: body.cwd ?? defaults.cwd,
      user: body.user ?? defaults.user,
      tty: body.tty,
      stdin: !!body.open_stdin,
      timeoutMs: body.timeout ? body.timeout * 1000 : undefined,
    });
    if (!body.open_stdin) guest.closeStdin();
    const id = newId('exec');
    // The session reads the guest's streams from now on: a short command may end while its
    // row is being written (a round trip on PostgreSQL), and its output must not be missed.
    // Its end is recorded only after the row exists.
    const inserted = this.repo.insertRunning({
      id,
      boxId: box.box_id,
      orgId: box.org_id,
      command: body.command,
      tty: !!body.tty,
      idempotencyKey: body.idempotency_key ?? null,
      startedAt: new Date().toISOString(),
    });
    const s = new ExecSession(id, box.box_id, guest, async (done) => {
      try {
        await inserted;
        await this.finish(done);
      } catch (e) {
        this.app.log.error(`exec ${id}: recording its end failed`, e);
      }
    });
    try {
      await inserted;
    } catch (e) {
      guest.signal('SIGKILL');
      throw e;
    }
    this.live.set(id, s);
    return s;
  }

  private async finish(s: ExecSession) {
    await this.repo.finish(s.id, {
      status: s.status,
      returnCode: s.returnCode,
      finishedAt: s.finishedAt,
      stdoutTail: s.tail('stdout'),
      stderrTail: s.tail('stderr'),
    });
    await this.boxes.touch(s.boxId);
    // Keep finished sessions briefly so late re-attaches and waits still see the output.
    setTimeout(() => this.live.delete(s.id), 60_000).unref();
  }

  hasRunning(boxId: string): boolean {
    return [...this.live.values()].some((s) => s.boxId === boxId && s.status === 'running');
  }

  session(boxId: string, execId: string): ExecSession {
    const s = this.live.get(execId);
    if (s && s.boxId === boxId) return s;
    throw notFound(`No running exec ${execId} in box ${boxId}.`, null, 'exec_id');
  }

  /** Waits for a command to end; answers from the record if it already ended. */
  async wait(boxId: string, execId: string) {
    const s = this.live.get(execId);
    if (s && s.boxId === boxId) await s.done;
    const row = await this.repo.get(boxId, execId);
    if (!row) throw notFound(`No exec ${execId} in box ${boxId}.`, null, 'exec_id');
    return {
      exec_id: row.id,
      status: row.status,
      return_code: row.return_code,
      stdout: (row.stdout_tail ?? Buffer.alloc(0)).toString('utf8'),
      stderr: (row.stderr_tail ?? Buffer.alloc(0)).toString('utf8'),
    };
  }

  cancel(boxId: string, execId: string, force: boolean) {
    const s = this.session(boxId, execId);
    if (s.status === 'running') {
      s.cancelled = true;
      s.guest.signal(force ? 'SIGKILL' : 'SIGTERM');
    }
    return { exec_id: s.id, status: s.status === 'running' ? 'cancelling' : s.status };
  }

  async list(boxId: string, limit = 50): Promise<ExecInfo[]> {
    return (await this.repo.list(boxId, limit)).map(toExecInfo);
  }
}
