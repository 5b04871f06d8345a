import { Readable } from 'node:stream';
import type { GuestAgent, GuestExec } from '../boxes/ports.js';
import { Failed, notFound } from '../core/domain-errors.js';
import { GUEST_DIR, GUEST_FILES, GUEST_PORT } from './guest-files.js';

/** One event of the in-guest daemon (resources/guest/code/boxcode.py), keyed by request id. */
export interface DaemonEvent {
  rid: number;
  type: string;
  [k: string]: unknown;
}

const NO_DAEMON = 3;
/** The connector's exit when the daemon closed the connection: it stopped (killed, crashed). */
const DAEMON_GONE = 5;

/**
 * The connector: one long-running exec per box that joins the host to the daemon's socket
 * (bash's /dev/tcp, so no process starts per request). It starts the daemon when none
 * listens (exit 3: its files are not in the box yet). The daemon runs in its own session:
 * it outlives this exec, and pause/resume, sleep/wake and forks carry it with the VM. When
 * the daemon goes, its end of the socket closes and the connector exits (5) at once, so a
 * run in flight fails then and the next request starts a new daemon.
 */
const CONNECT = `D=${GUEST_DIR}
c() { exec 3<>/dev/tcp/127.0.0.1/${GUEST_PORT}; } 2>/dev/null
if ! c; then
  [ -f $D/boxcode.py ] || exit ${NO_DAEMON}
  setsid -f python3 $D/boxcode.py >>$D/daemon.log 2>&1 </dev/null
  i=0; until c; do i=$((i+1)); [ $i -gt 1200 ] && exit 4; sleep 0.05; done
fi
cat <&0 >&3 & w=$!
cat <&3; kill $w 2>/dev/null; exit ${DAEMON_GONE}`;

type Pending = { onEvent: (e: DaemonEvent) => void; resolve: (e: DaemonEvent) => void; reject: (e: Error) => void };

/** The host's end of one box's daemon connection: requests out, events back by request id. */
export class DaemonLink {
  private rid = 0;
  private pending = new Map<number, Pending>();
  private buf = '';
  closed = false;

  private constructor(private exec: GuestExec) {
    exec.stdout.setEncoding('utf8');
    exec.stdout.on('data', (s: string) => this.take(s));
    exec.stderr.resume();
    const end = (why: string) => {
      this.closed = true;
      for (const p of this.pending.values()) p.reject(new Failed(why));
      this.pending.clear();
    };
    exec.exit.then(
      (r) =>
        end(
          r.exitCode === DAEMON_GONE
            ? 'The code interpreter in the box stopped: the state of every context is lost. The next run starts it again, with fresh contexts.'
            : `The code interpreter's connection ended (${r.exitCode === NO_DAEMON ? 'no daemon' : `exit ${r.exitCode ?? r.signal}`}).`,
        ),
      (e: Error) => end(`The code interpreter's connection ended: ${e.message}.`),
    );
  }

  /** Connects to the box's daemon, starting it (after writing its files) when needed. */
  static async open(agent: GuestAgent, env: Record<string, string>, user?: string): Promise<DaemonLink> {
    for (let attempt = 0; ; attempt++) {
      const exec = agent.exec({ argv: ['/bin/bash', '-c', CONNECT], env, user, stdin: true });
      const link = new DaemonLink(exec);
      // the connector prints nothing itself: the daemon answers, or the connector exits
      if (
        await link.hello(env).then(
          () => true,
          () => false,
        )
      )
        return link;
      const early = await exec.exit;
      if (early.exitCode !== NO_DAEMON || attempt > 0) {
        throw new Failed(`The code interpreter could not start in the box (connector exit ${early.exitCode ?? early.signal}).`);
      }
      for (const f of GUEST_FILES)
        await agent.writeFile(`${GUEST_DIR}/${f.name}`, { mode: 0o644, createParents: true, durable: false }, Readable.from([f.content]));
    }
  }

  /**
   * The first request on a connection, answered by a running daemon: it hands over the box's
   * environment (egress proxy, inference variables), which the template's daemon, started
   * before the box was, does not have; its kernels take it before their next cell.
   */
  private hello(env: Record<string, string>) {
    return this.request({ op: 'env', env });
  }

  private take(s: string) {
    this.buf += s;
    let nl: number;
    while ((nl = this.buf.indexOf('\n')) >= 0) {
      const line = this.buf.slice(0, nl);
      this.buf = this.buf.slice(nl + 1);
      let e: DaemonEvent;
      try {
        e = JSON.parse(line) as DaemonEvent;
      } catch {
        continue;
      }
      const p = this.pending.get(e.rid);
      if (!p) continue;
      if (e.type === 'end' || e.type === 'reply') {
        this.pending.delete(e.rid);
        p.resolve(e);
      } else if (e.type === 'fail') {
        this.pending.delete(e.rid);
        const msg = String(e.message);
        p.reject(e.code === 'not_found' ? notFound(msg, null, 'context_id') : new Failed(`The code interpreter failed: ${msg}`));
      } else p.onEvent(e);
    }
  }

  /**
   * Sends one request; events before its end go to onEvent; answers the end or reply event.
   * An abort of `signal` while it runs asks the daemon to interrupt it (a run's cell).
   */
  request(body: Record<string, unknown>, onEvent: (e: DaemonEvent) => void = () => {}, signal?: AbortSignal): Promise<DaemonEvent> {
    if (this.closed) return Promise.reject(new Failed("The code interpreter's connection has ended."));
    const rid = ++this.rid;
    if (signal) {
      const cancel = () => void this.request({ op: 'cancel', run: rid }).catch(() => {});
      if (signal.aborted) queueMicrotask(cancel);
      else {
        signal.addEventListener('abort', cancel, { once: true });
        const done = () => signal.removeEventListener('abort', cancel);
        return this.send(rid, body, onEvent).finally(done);
      }
    }
    return this.send(rid, body, onEvent);
  }

  private send(rid: number, body: Record<string, unknown>, onEvent: (e: DaemonEvent) => void): Promise<DaemonEvent> {
    return new Promise<DaemonEvent>((resolve, reject) => {
      this.pending.set(rid, { onEvent, resolve, reject });
      this.exec.writeStdin(Buffer.from(`${JSON.stringify({ ...body, rid })}\n`)).catch((e: Error) => {
        this.pending.delete(rid);
        reject(new Failed(`The code interpreter could not be reached: ${e.message}`));
      });
    });
  }

  close() {
    this.closed = true;
    this.exec.closeStdin();
    this.exec.signal('SIGKILL');
  }
}
