import { openFastConnection } from '../db/fast-connection.js';
import type { AppBase } from '../app-context.js';
import type { Db } from '../db/connection.js';
import { newId } from '../contract/common.js';
import type { ExecBody, ExecInfo } from '../contract/exec.js';
import { notFound } from '../http/errors.js';
import type { BoxService } from './box-service.js';
import type { BoxRecord } from './boxes-repo.js';
import { ExecSession } from './exec-session.js';

interface ExecRow {
  id: string;
  box_id: string;
  command: string;
  tty: number;
  status: ExecInfo['status'];
  return_code: number | null;
  started_at: string;
  finished_at: string | null;
  stdout_tail: Buffer | null;
  stderr_tail: Buffer | null;
}

const toInfo = (r: ExecRow): ExecInfo => ({
  exec_id: r.id,
  box_id: r.box_id,
  command: JSON.parse(r.command),
  tty: !!r.tty,
  status: r.status,
  return_code: r.return_code,
  started_at: r.started_at,
  finished_at: r.finished_at,
});

/** Exec records go through the NORMAL-sync connection (db/fast-connection.ts): no fsync on the exec hot path. */
const openExecRecords = openFastConnection;

/** Starts commands in boxes through the guest agent and keeps their sessions and records. */
export class ExecService {
  private live = new Map<string, ExecSession>();
  private records: Db;

  constructor(
    private app: AppBase,
    private boxes: BoxService,
  ) {
    // Commands that were running when the service stopped cannot be re-attached.
    app.db.prepare("UPDATE execs SET status = 'failed', finished_at = ? WHERE status = 'running'").run(new Date().toISOString());
    this.records = openExecRecords(app.config.dataDir);
  }

  close() {
    this.records.close();
  }

  /** Starts (or, for a repeated idempotency_key, re-attaches to) a command. */
  async start(box: BoxRecord, body: ExecBody): Promise<ExecSession> {
    if (body.idempotency_key) {
      const prior = this.app.db.prepare('SELECT id FROM execs WHERE box_id = ? AND idempotency_key = ?').get(box.box_id, body.idempotency_key) as { id: string } | undefined;
      if (prior) return this.session(box.box_id, prior.id);
    }
    const running = await this.boxes.ensureRunning(box, 'exec');
    const agent = await this.boxes.runtime.agent(running.box_id);
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
    this.records
      .prepare("INSERT INTO execs (id, box_id, org_id, command, tty, status, idempotency_key, started_at) VALUES (?, ?, ?, ?, ?, 'running', ?, ?)")
      .run(id, box.box_id, box.org_id, JSON.stringify(body.command), body.tty ? 1 : 0, body.idempotency_key ?? null, new Date().toISOString());
    const s = new ExecSession(id, box.box_id, guest, (done) => this.finish(done));
    this.live.set(id, s);
    return s;
  }

  private finish(s: ExecSession) {
    this.records
      .prepare('UPDATE execs SET status = ?, return_code = ?, finished_at = ?, stdout_tail = ?, stderr_tail = ? WHERE id = ?')
      .run(s.status, s.returnCode, s.finishedAt, s.tail('stdout'), s.tail('stderr'), s.id);
    this.boxes.touch(s.boxId);
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
    const row = this.app.db.prepare('SELECT * FROM execs WHERE id = ? AND box_id = ?').get(execId, boxId) as ExecRow | undefined;
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

  list(boxId: string, limit = 50): ExecInfo[] {
    return (this.app.db.prepare('SELECT * FROM execs WHERE box_id = ? ORDER BY started_at DESC, rowid DESC LIMIT ?').all(boxId, limit) as ExecRow[]).map(toInfo);
  }
}
