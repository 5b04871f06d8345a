// Execs outlive their host session: detach on disconnect/HELLO, list, attach, orphan policy.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AgentClient } from './agent-client.js';
import { AgentClient as Client } from './agent-client.js';
import { CH, FrameDecoder, M, T, encodeFields, encodeFrame, type Frame } from './protocol.js';
import { buildAgent, collect, type RunningAgent, startAgent } from './test-support/agent-harness.js';

let agent: RunningAgent;

beforeAll(async () => {
  buildAgent();
  agent = await startAgent();
});

afterAll(async () => {
  await agent?.stop();
});

// The agent serves one connection at a time: a failed test must not leave one open.
const open = new Set<AgentClient>();
afterEach(() => {
  for (const c of open) c.close();
  open.clear();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function connect(opts: { orphanGraceMs?: number; killOrphans?: boolean } = {}) {
  const c = await Client.connect(agent.sock, { timeoutMs: 5000, ...opts });
  open.add(c);
  return c;
}

async function closeAndWait(c: AgentClient) {
  c.close();
  await c.closed;
  await sleep(100); // the agent notices the hang-up on its next poll
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Collects a stream's text as it arrives. */
function tap(s: NodeJS.ReadableStream) {
  const t = { text: '' };
  s.on('data', (c: Buffer) => (t.text += c.toString()));
  return t;
}

async function until(cond: () => boolean, ms = 5000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(10);
  }
}

describe('detached execs', () => {
  it('a running exec survives a dropped connection; attach continues its output exactly', async () => {
    const c1 = await connect();
    const ex = c1.exec({ argv: 'i=0; while :; do echo $i; i=$((i+1)); sleep 0.05; done' });
    ex.stdout.on('error', () => {}); // the drop is expected
    const first = tap(ex.stdout);
    await until(() => first.text.split('\n').length > 4);
    await closeAndWait(c1);
    await sleep(300); // it keeps counting while nobody is attached
    const seen = first.text.trim().split('\n').map(Number);
    const c2 = await connect();
    const listed = c2.info!.detached.find((d) => d.stream === ex.id);
    expect(listed).toMatchObject({ pid: ex.pid, exited: null, tty: false, stdin: false, discarding: false });
    expect(c2.info!.maxStream).toBeGreaterThanOrEqual(ex.id);
    const again = c2.attach(ex.id);
    expect((await again.started).pid).toBe(ex.pid);
    const second = tap(again.stdout);
    await until(() => second.text.split('\n').length > 10);
    again.signal('SIGTERM');
    expect(await again.exit).toMatchObject({ exitCode: null, signal: 15 });
    const numbers = [...seen, ...second.text.trim().split('\n').map(Number)];
    // one process counting on, every line once, in order, across both sessions
    expect(numbers).toEqual(numbers.map((_, i) => i));
    expect(numbers.length).toBeGreaterThan(seen.length + 5);
    // new requests never reuse the stream id of a detached exec
    const next = c2.exec({ argv: ['true'] });
    expect(next.id).toBeGreaterThan(ex.id);
    await next.exit;
    c2.close();
  });

  it('an exec that ended while detached is listed with its status; attach delivers the rest, EOF and EXIT', async () => {
    const c1 = await connect();
    const ex = c1.exec({ argv: 'echo one; sleep 0.3; echo two; echo err >&2; exit 7' });
    ex.stdout.on('error', () => {});
    await new Promise((r) => ex.stdout.once('data', r));
    await closeAndWait(c1);
    await sleep(500);
    const c2 = await connect();
    expect(c2.info!.detached.find((d) => d.stream === ex.id)).toMatchObject({ exited: { exitCode: 7, signal: null, timedOut: false } });
    const again = c2.attach(ex.id);
    const [out, err, exit] = await Promise.all([collect(again.stdout), collect(again.stderr), again.exit]);
    expect(out.toString()).toBe('two\n');
    expect(err.toString()).toBe('err\n');
    expect(exit).toEqual({ exitCode: 7, signal: null, timedOut: false });
    // attached and finished: the agent forgot it
    expect((await c2.hello()).detached.some((d) => d.stream === ex.id)).toBe(false);
    await expect(c2.attach(ex.id).exit).rejects.toMatchObject({ code: 'not_found' });
    c2.close();
  });

  it('while detached, output is held up to the credit, then the process blocks; nothing is lost', async () => {
    const total = 3_000_000;
    const window = 64 * 1024;
    const c1 = await connect();
    const ex = c1.exec({ argv: `head -c ${total} /dev/zero; echo done >&2`, outputWindow: window });
    ex.stdout.on('error', () => {});
    await sleep(300); // unread: the first window arrived, then the agent stopped reading
    const receivedBefore = ex.stdout.readableLength;
    expect(receivedBefore).toBe(window);
    await closeAndWait(c1);
    const c2 = await connect();
    await sleep(300);
    const again = c2.attach(ex.id, { outputWindow: window });
    const [out, err, exit] = await Promise.all([collect(again.stdout), collect(again.stderr), again.exit]);
    expect(receivedBefore + out.length).toBe(total);
    expect(err.toString()).toBe('done\n');
    expect(exit.exitCode).toBe(0);
    c2.close();
  });

  it('orphans nobody attaches run on past the grace period and never block (default policy)', async () => {
    const marker = join(agent.dir, 'orphan-finished');
    const c1 = await connect();
    const ex = c1.exec({ argv: `head -c 5000000 /dev/zero; echo x >&2; touch ${marker}`, outputWindow: 16 * 1024 });
    ex.stdout.on('error', () => {});
    await ex.started;
    await closeAndWait(c1);
    await sleep(500);
    expect(existsSync(marker)).toBe(false); // blocked on its full pipe while held
    const c2 = await connect({ orphanGraceMs: 200 });
    expect(c2.info!.detached.find((d) => d.stream === ex.id)?.exited).toBeNull();
    await until(() => existsSync(marker), 5000); // discarding: it ran to the end
    // once it has ended nobody is there for its status: the agent forgets it
    await expect.poll(async () => (await c2.hello()).detached.some((d) => d.stream === ex.id), { timeout: 3000 }).toBe(false);
    c2.close();
  });

  it('with killOrphans the agent kills them after the grace period', async () => {
    const c1 = await connect();
    const ex = c1.exec({ argv: ['sleep', '60'] });
    const { pid } = await ex.started;
    await closeAndWait(c1);
    const c2 = await connect({ orphanGraceMs: 300, killOrphans: true });
    expect(c2.info!.detached.some((d) => d.stream === ex.id)).toBe(true);
    await sleep(100);
    expect(processExists(pid)).toBe(true); // still within the grace period
    await expect.poll(() => processExists(pid), { timeout: 3000 }).toBe(false);
    expect((await c2.hello()).detached.some((d) => d.stream === ex.id)).toBe(false);
    c2.close();
  });

  it('killDetached ends a detached exec at once; a HELLO on the same connection also detaches', async () => {
    const c = await connect();
    const ex = c.exec({ argv: ['sleep', '60'] });
    const { pid } = await ex.started;
    await c.hello(); // new session on the same connection
    await expect(ex.exit).rejects.toMatchObject({ code: 'disconnected' });
    expect(c.info!.detached.find((d) => d.stream === ex.id)?.pid).toBe(pid);
    expect(processExists(pid)).toBe(true);
    c.killDetached(ex.id);
    await expect.poll(() => processExists(pid), { timeout: 3000 }).toBe(false);
    expect((await c.hello()).detached.some((d) => d.stream === ex.id)).toBe(false);
    c.close();
  });

  it('stdin and tty survive: a shell attached again reads what is typed and keeps its terminal', async () => {
    const c1 = await connect();
    const ex = c1.exec({ argv: ['/bin/sh', '-c', 'while read l; do echo "got $l"; done; echo bye'], tty: { cols: 90, rows: 20 } });
    ex.stdout.on('error', () => {});
    const t1 = tap(ex.stdout);
    await ex.writeStdin('a\n');
    await until(() => t1.text.includes('got a'));
    await closeAndWait(c1);
    const c2 = await connect();
    expect(c2.info!.detached.find((d) => d.stream === ex.id)).toMatchObject({ tty: true, stdin: true });
    const again = c2.attach(ex.id);
    const t2 = tap(again.stdout);
    await again.started;
    await again.writeStdin('b\n');
    await until(() => t2.text.includes('got b'));
    await again.closeStdin();
    expect((await again.exit).exitCode).toBe(0);
    expect(t2.text).toContain('bye');
    c2.close();
  });

  it('output queued but unsent when a new session starts is sent again after ATTACH, in order', async () => {
    // A raw host that stops reading: the agent's queue fills (1 MiB) behind the socket buffer.
    const sock = net.createConnection(agent.sock);
    await new Promise((r) => sock.once('connect', r));
    const dec = new FrameDecoder();
    const frames: Frame[] = [];
    sock.on('data', (c: Buffer) => frames.push(...dec.push(c)));
    sock.write(encodeFrame(M.HELLO, 0, 1));
    await until(() => frames.some((f) => f.type === M.HELLO_REPLY));
    const id = 2;
    sock.pause();
    const argv: Array<[number, string | number]> = [
      [T.ARGV, 'seq'],
      [T.ARGV, '1'],
      [T.ARGV, '400000'],
      [T.WINDOW, 16 << 20],
    ];
    sock.write(encodeFrame(M.EXEC, 0, id, encodeFields(argv)));
    await sleep(500);
    sock.write(encodeFrame(M.HELLO, 0, 3)); // a new session while the old one's output is queued
    sock.write(encodeFrame(M.ATTACH, 0, id, encodeFields([[T.WINDOW, 16 << 20]])));
    sock.resume();
    await until(() => frames.some((f) => f.stream === id && f.type === M.EXIT), 10_000);
    sock.destroy();
    const out = Buffer.concat(frames.filter((f) => f.stream === id && f.type === M.DATA && f.flags === CH.STDOUT).map((f) => f.payload));
    expect(out.equals(execFileSync('seq', ['1', '400000'], { maxBuffer: 64 << 20 }))).toBe(true);
    const order = frames.map((f) => f.type);
    expect(order.indexOf(M.HELLO_REPLY, 1)).toBeGreaterThan(0);
    expect(order.lastIndexOf(M.EXEC_STARTED)).toBeGreaterThan(order.indexOf(M.HELLO_REPLY, 1));
    await sleep(100);
  });

  it('an upload of a dead session leaves no file, temp or final', async () => {
    const dir = join(agent.dir, 'up');
    const c1 = await connect();
    await c1.mkdir(dir);
    const src = new PassThrough();
    const done = c1.writeFile(join(dir, 'f.bin'), {}, src);
    done.catch(() => {});
    src.write(Buffer.alloc(300_000, 1));
    await until(() => readdirSync(dir).some((n) => n.startsWith('.box-upload-')));
    await closeAndWait(c1);
    src.end(); // writeFile notices the drop at its next send
    await expect(done).rejects.toMatchObject({ code: 'disconnected' });
    const c2 = await connect();
    expect(readdirSync(dir)).toEqual([]);
    c2.close();
  });
});
