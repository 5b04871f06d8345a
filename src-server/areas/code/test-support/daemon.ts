import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { RESOURCES_DIR } from '../../runtime/guest-image/guest-image.js';

export type DaemonEv = { rid: number; type: string; [k: string]: unknown };
export type DaemonExecution = {
  context_id: string;
  results: Record<string, unknown>[];
  stdout: string;
  stderr: string;
  error: { name: string; value: string; traceback: string } | null;
  execution_count: number | null;
  truncated?: boolean;
};

/**
 * The in-guest code daemon (resources/guest/code) started on this machine with Debian's
 * Python and Node, on a free port, in a home of its own; requests over one connection.
 */
export async function openDaemon(reuseHome?: string) {
  const home = reuseHome ?? mkdtempSync('/tmp/boxcode-test-');
  if (!reuseHome) cpSync(join(RESOURCES_DIR, 'guest', 'code'), home, { recursive: true });
  // BOX_TEST_PYTHON: another Python with the guest's packages (e.g. a wrapper that runs the image's in a chroot)
  const d: ChildProcess = spawn(process.env.BOX_TEST_PYTHON ?? '/usr/bin/python3', [join(home, 'boxcode.py')], {
    env: { ...process.env, BOX_CODE_PORT: '0', HOME: home, MPLCONFIGDIR: home },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    d.stdout!.setEncoding('utf8').on('data', (s: string) => {
      out += s;
      const m = /listening on (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    d.once('exit', (code) => reject(new Error(`the code daemon exited (${code}) before it listened: ${out}`)));
  });
  const sock = connect(port, '127.0.0.1');
  const waiting = new Map<number, { events: DaemonEv[]; done: (e: DaemonEv[]) => void }>();
  let buf = '';
  let rid = 0;
  sock.setEncoding('utf8').on('data', (s: string) => {
    buf += s;
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const e = JSON.parse(buf.slice(0, nl)) as DaemonEv;
      buf = buf.slice(nl + 1);
      const w = waiting.get(e.rid)!;
      w.events.push(e);
      if (['end', 'reply', 'fail'].includes(e.type)) w.done(w.events);
    }
  });
  /** Sends a request; answers its events up to its end, reply or fail. */
  const request = (body: Record<string, unknown>): { rid: number; events: Promise<DaemonEv[]> } => {
    const id = ++rid;
    const events = new Promise<DaemonEv[]>((done) => waiting.set(id, { events: [], done }));
    sock.write(`${JSON.stringify({ ...body, rid: id })}\n`);
    return { rid: id, events };
  };
  const run = async (body: Record<string, unknown>) => (await request({ op: 'run', timeout: 60, ...body }).events).at(-1)!.execution as DaemonExecution;
  const close = () => {
    sock.destroy();
    d.kill('SIGKILL');
  };
  return { port, home, request, run, close };
}

/** A run's main result (the cell's value). */
export const mainResult = (x: DaemonExecution) => x.results.find((r) => r.is_main_result);
