import { Readable } from 'node:stream';
import type { GuestAgent, GuestExec } from '../boxes/ports.js';
import { Failed, notFound } from '../../kernel/domain-errors.js';
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
 * The link: one long-running exec stream per box joined to the daemon's socket. The agent
 * connects to the daemon's port itself (`connectPort`: no process in the box, no shell to
 * start: a template's daemon is listening in every clone from its first instant), and the
 * stream ends (exit 0) when the daemon closes it. Only when nothing listens does the agent
 * run this connector instead: bash starts the daemon (exit 3 when its files are not in the
 * box yet) and joins the stream to it with /dev/tcp; when the daemon goes, the connector
 * exits (5). The daemon runs in its own session: it outlives the stream, and pause/resume,
 * sleep/wake and forks carry it with the VM. A run in flight fails when it goes, and the
 * next request starts a new daemon.
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
  /** Languages whose runtime the box lacks (the daemon says so on connecting): a box started from the image's base. */
  missing: string[] = [];

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
          r.exitCode === DAEMON_GONE || r.exitCode === 0
            ? 'The code interpreter in the box stopped: the state of every context is lost. The next run starts it again, with fresh contexts.'
            : `The code interpreter's connection ended (${r.exitCode === NO_DAEMON ? 'no daemon' : `exit ${r.exitCode ?? r.signal}`}).`,
        ),
      (e: Error) => end(`The code interpreter's connection ended: ${e.message}.`),
    );
  }

  /** Connects to the box's daemon, starting it (after writing its files) when needed. */
  static async open(agent: GuestAgent, env: Record<string, string>, user?: string): Promise<DaemonLink> {
    let wrote = false;
    for (let attempt = 0; ; attempt++) {
      const exec = agent.exec({ argv: ['/bin/bash', '-c', CONNECT], env, user, stdin: true, connectPort: GUEST_PORT });
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
      // connected, then closed before answering: a daemon that was going (killed, its
      // listener not yet closed) took the connection; the next attempt finds it gone and starts one
      if (early.exitCode === 0 && attempt < 3) {
        await new Promise((r) => setTimeout(r, 200));
        continue;
      }
      if (early.exitCode !== NO_DAEMON || wrote) {
        throw new Failed(`The code interpreter could not start in the box (connector exit ${early.exitCode ?? early.signal}).`);
      }
      wrote = true;
      for (const f of GUEST_FILES)
        await agent.writeFile(`${GUEST_DIR}/${f.name}`, { mode: 0o644, createParents: true, durable: false }, Readable.from([f.content]));
    }
  }

  /**
   * A warm-pool clone's warm-up: a connection to the template's daemon (none is started when
   * none listens) runs the path of a first cell once, silently (op `touch`), so QEMU has
   * translated it before a box takes the clone. Leaves nothing a box could see.
   */
  static async touch(agent: GuestAgent): Promise<void> {
    const exec = agent.exec({ argv: ['/bin/true'], stdin: true, connectPort: GUEST_PORT, timeoutMs: 60_000 });
    const link = new DaemonLink(exec);
    try {
      await link.request({ op: 'env', env: {} }); // the template's own (empty) box environment: no change
      await link.request({ op: 'touch' });
    } catch {
      // no daemon in this template (or it failed): nothing to warm
    } finally {
      exec.closeStdin();
      await exec.exit.catch(() => {});
    }
  }

  /**
   * The first request on a connection, answered by a running daemon: it hands over the box's
   * environment (egress proxy, inference variables), which the template's daemon, started
   * before the box was, does not have; its kernels take it before their next cell.
   */
  private async hello(env: Record<string, string>) {
    const r = await this.request({ op: 'env', env });
    this.missing = Array.isArray(r.missing) ? (r.missing as string[]) : [];
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
