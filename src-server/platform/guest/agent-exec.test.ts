import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentClient } from './agent-client.js';
import { AgentError } from './agent-errors.js';
import { AgentExec, type StreamConn } from './agent-exec.js';
import { CH, M } from './protocol.js';
import { buildAgent, collect, type RunningAgent, startAgent } from './test-support/agent-harness.js';

let agent: RunningAgent;
let client: AgentClient;

beforeAll(async () => {
  buildAgent();
  agent = await startAgent();
  client = await agent.connect();
});

afterAll(async () => {
  client?.close();
  await agent?.stop();
});

async function run(argv: string[] | string, extra: Record<string, unknown> = {}) {
  const ex = client.exec({ argv, ...extra });
  const [stdout, stderr, exit] = await Promise.all([collect(ex.stdout), collect(ex.stderr), ex.exit]);
  return { stdout: stdout.toString(), stderr: stderr.toString(), ...exit };
}

describe('agent basics', () => {
  it('answers hello and ping with version and uptime', async () => {
    const info = await client.hello();
    expect(info.version).toMatch(/^0\.1\.0\+[0-9a-f]{12}$/);
    expect(info.protocol).toBe(1);
    expect(info.pid).toBe(agent.proc.pid);
    expect(info.init).toBe(false);
    await new Promise((r) => setTimeout(r, 20));
    const pong = await client.ping();
    expect(pong.version).toBe(info.version);
    expect(pong.uptimeMs).toBeGreaterThanOrEqual(info.uptimeMs + 15);
  });
});

describe('exec', () => {
  it('reports exit codes', async () => {
    expect(await run(['true'])).toMatchObject({ exitCode: 0, signal: null, timedOut: false });
    expect(await run('exit 3')).toMatchObject({ exitCode: 3, signal: null });
  });

  it('reports death by signal', async () => {
    const r = await run('kill -9 $$');
    expect(r).toMatchObject({ exitCode: null, signal: 9, timedOut: false });
  });

  it('separates stdout and stderr', async () => {
    const r = await run('echo out1; echo err1 >&2; echo out2');
    expect(r.stdout).toBe('out1\nout2\n');
    expect(r.stderr).toBe('err1\n');
  });

  it('applies env and cwd, with default PATH and HOME', async () => {
    const r = await run(['/bin/sh', '-c', 'echo "$FOO|$(pwd)|$PATH|$HOME"'], { env: { FOO: 'bar baz' }, cwd: '/usr' });
    expect(r.stdout).toBe('bar baz|/usr|/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin|/root\n');
  });

  it('runs as another user with that user home and groups', async () => {
    const r = await run('id -u; id -g; echo $HOME; pwd', { user: 'nobody' });
    expect(r.exitCode).toBe(0);
    const [uid, , home, pwd] = r.stdout.trim().split('\n');
    expect(uid).toBe('65534');
    expect(home).toBe('/nonexistent');
    expect(pwd).toBe('/'); // home does not exist: falls back to /
  });

  it('rejects an unknown user and a missing binary with typed errors', async () => {
    await expect(client.exec({ argv: ['true'], user: 'no-such-user-x' }).exit).rejects.toMatchObject({ code: 'invalid' });
    const missing = client.exec({ argv: ['/no/such/binary'] });
    await expect(missing.exit).rejects.toBeInstanceOf(AgentError);
    await expect(missing.exit).rejects.toMatchObject({ code: 'not_found' });
    await expect(client.exec({ argv: ['true'], cwd: '/no/such/dir' }).exit).rejects.toMatchObject({ code: 'not_found' });
  });

  it('round-trips stdin through cat, with EOF', async () => {
    const ex = client.exec({ argv: ['cat'], stdin: true });
    const out = collect(ex.stdout);
    const big = Buffer.alloc(1024 * 1024, 'x'); // larger than the stdin window
    await ex.writeStdin('hello ');
    await ex.writeStdin(big);
    await ex.closeStdin();
    const data = await out;
    expect(data.length).toBe(6 + big.length);
    expect(data.subarray(0, 6).toString()).toBe('hello ');
    expect((await ex.exit).exitCode).toBe(0);
  });

  it('gives a tty, merges stderr, resizes', async () => {
    const ex = client.exec({
      argv: ['/bin/sh', '-c', 'tty; stty size; echo e >&2; read x; stty size; echo "[$TERM]"'],
      tty: { cols: 100, rows: 30 },
    });
    let text = '';
    ex.stdout.on('data', (c: Buffer) => (text += c.toString()));
    const stderr = collect(ex.stderr);
    await waitFor(() => text.includes('\ne'));
    ex.resize(132, 43);
    await ex.writeStdin('go\n');
    const exit = await ex.exit;
    expect(exit.exitCode).toBe(0);
    const lines = text.split(/\r?\n/).filter((l) => l !== '' && l !== 'go');
    expect(lines[0]).toMatch(/^\/dev\/pts\/\d+$/);
    expect(lines.slice(1)).toEqual(['30 100', 'e', '43 132', '[xterm-256color]']);
    expect((await stderr).length).toBe(0);
  });

  it('kills on timeout and reports timed_out', async () => {
    const t0 = Date.now();
    const r = await run('echo start; sleep 30', { timeoutMs: 300 });
    expect(r).toMatchObject({ exitCode: null, signal: 9, timedOut: true, stdout: 'start\n' });
    expect(Date.now() - t0).toBeLessThan(3000);
  });

  it('delivers signals to the whole process group', async () => {
    const ex = client.exec({ argv: '(sleep 30; echo child-survived) & echo ready; wait' });
    let text = '';
    ex.stdout.on('data', (c: Buffer) => (text += c.toString()));
    await waitFor(() => text.includes('ready'));
    const t0 = Date.now();
    ex.signal('SIGTERM');
    const exit = await ex.exit;
    expect(exit).toMatchObject({ signal: 15, timedOut: false });
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(text).not.toContain('child-survived');
  });

  it('runs many execs concurrently', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => run(`sleep 0.2; echo ${i}`)));
    expect(results.map((r) => r.stdout)).toEqual(Array.from({ length: 20 }, (_, i) => `${i}\n`));
  });

  it('holds a process back while its output is not read (credit)', async () => {
    const ex = client.exec({ argv: 'head -c 3000000 /dev/zero; echo done >&2', outputWindow: 64 * 1024 });
    const err = collect(ex.stderr);
    await new Promise((r) => setTimeout(r, 300));
    // nothing read yet: the agent sent at most the window, the process is blocked
    expect(ex.stdout.readableLength).toBeLessThanOrEqual(64 * 1024);
    const out = await collect(ex.stdout);
    expect(out.length).toBe(3000000);
    expect((await err).toString()).toBe('done\n');
  });
});

describe('started report of a command without stdin (agent.h, STARTED_HOLD_MS)', () => {
  /** When 'started' and the exit were seen, and whether a later event-loop turn ran between them. */
  async function timeline(argv: string) {
    const ex = client.exec({ argv });
    let startedAt = 0;
    let turnBetween = false;
    ex.on('started', () => {
      startedAt = performance.now();
      setImmediate(() => (turnBetween = true));
    });
    await Promise.all([collect(ex.stdout), collect(ex.stderr), ex.exit]);
    return { startedAt, exitAt: performance.now(), turnBetween };
  }

  it('leaves with the exit of a short command: one read, one turn', async () => {
    for (let i = 0; i < 3; i++) await timeline('true'); // warm
    const runs = [];
    for (let i = 0; i < 5; i++) runs.push(await timeline('true'));
    // held, the frames arrive in one piece; unheld, the host reads 'started' a process start before the exit
    expect(runs.filter((r) => r.startedAt > 0 && !r.turnBetween).length).toBeGreaterThanOrEqual(1);
  });

  it('is not held until the end of a longer command', async () => {
    const r = await timeline('sleep 0.4');
    expect(r.startedAt).toBeGreaterThan(0);
    expect(r.exitAt - r.startedAt).toBeGreaterThan(250);
  });
});

describe('stdin EOF', () => {
  // The frames an exec sends, without an agent.
  const recorder = () => {
    const sent: Array<[number, number]> = [];
    const conn: StreamConn = { sendControl: (type, flags) => void sent.push([type, flags]), sendData: async () => {}, release: () => {} };
    return { sent, conn };
  };

  it('is sent for an exec with a stdin pipe or a tty, and not for one reading /dev/null', async () => {
    for (const [shape, expected] of [
      [{ tty: false, stdin: true }, [[M.EOF, CH.IN]]],
      [{ tty: true, stdin: false }, [[M.EOF, CH.IN]]],
      [{ tty: false, stdin: false }, []],
    ] as const) {
      const { sent, conn } = recorder();
      const ex = new AgentExec(conn, 7, shape);
      await ex.closeStdin();
      await ex.closeStdin(); // once only
      expect(sent).toEqual(expected);
    }
  });

  it('is not needed: a command without stdin reads end-of-file at once', async () => {
    const r = await run(['/bin/sh', '-c', 'cat; echo after'], { stdin: false });
    expect(r).toMatchObject({ stdout: 'after\n', exitCode: 0 });
  });
});

async function waitFor(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('waitFor timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}
