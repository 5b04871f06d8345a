import { type ChildProcess, spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { AgentClient } from './agent-client.js';
import { Fields, FrameDecoder, M, T, encodeFields, encodeFrame, type Frame } from './protocol.js';
import { AGENT_BIN, buildAgent, collect, type RunningAgent, startAgent } from './test-support/agent-harness.js';

let agent: RunningAgent;

beforeAll(async () => {
  buildAgent();
  agent = await startAgent();
});

afterAll(async () => {
  await agent?.stop();
});

/** A raw connection for sending bytes the client would never send. */
async function raw() {
  const sock = net.createConnection(agent.sock);
  await new Promise((resolve, reject) => {
    sock.once('connect', resolve);
    sock.once('error', reject);
  });
  const dec = new FrameDecoder();
  const frames: Frame[] = [];
  sock.on('data', (c: Buffer) => frames.push(...dec.push(c)));
  const next = async (pred: (f: Frame) => boolean, ms = 3000) => {
    const end = Date.now() + ms;
    for (;;) {
      const i = frames.findIndex(pred);
      if (i >= 0) return frames.splice(i, 1)[0];
      if (Date.now() > end)
        throw new Error(`no matching frame; received and unclaimed: ${frames.map((f) => `${f.type.toString(16)}/${f.stream}`).join(' ') || 'none'}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  return { sock, frames, next };
}

const alive = () => agent.proc.exitCode === null && agent.proc.signalCode === null;

describe('protocol robustness', () => {
  it('answers malformed frames with errors and keeps serving', async () => {
    const c = await raw();
    // the agent serves one connection at a time: a failure here must not hold it for the next tests
    onTestFinished(() => void c.sock.destroy());
    c.sock.write(encodeFrame(M.HELLO, 0, 1));
    expect((await c.next((f) => f.stream === 1)).type).toBe(M.HELLO_REPLY);
    // well framed but bad content: per-stream errors, the session continues
    c.sock.write(encodeFrame(0x7f, 0, 2));
    c.sock.write(encodeFrame(M.EXEC, 0, 3, Buffer.from([10, 0xff, 0xff, 0xff, 0xff, 1])));
    c.sock.write(encodeFrame(M.EXEC, 0, 4, encodeFields([[T.CWD, '/']])));
    c.sock.write(encodeFrame(M.STAT, 0, 5, encodeFields([[T.PATH, 'a\0b']])));
    c.sock.write(encodeFrame(M.SIGNAL, 0, 6, encodeFields([[T.SIGNAL, 15]])));
    c.sock.write(encodeFrame(M.EXEC, 0, 0, encodeFields([[T.ARGV, 'true']])));
    for (const [id, code] of [
      [2, 'invalid'],
      [3, 'invalid'],
      [4, 'invalid'],
      [5, 'invalid'],
      [6, 'not_found'],
      [0, 'invalid'],
    ] as const) {
      const f = await c.next((x) => x.stream === id);
      expect(f.type).toBe(M.ERROR);
      expect(new Fields(f.payload).str(T.CODE)).toBe(code);
    }
    c.sock.write(encodeFrame(M.PING, 0, 7));
    expect((await c.next((f) => f.stream === 7)).type).toBe(M.PONG);
    // broken framing: one connection-level error, input skipped until a HELLO
    c.sock.write(Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
    const hdr = Buffer.alloc(12);
    hdr.set([0xb0, 0xc5, M.PING, 0]);
    hdr.writeUInt32BE(8, 4);
    hdr.writeUInt32BE(0x7fffffff, 8); // oversized
    c.sock.write(hdr);
    c.sock.write(encodeFrame(M.PING, 0, 9)); // ignored while resynchronising
    // the error before the HELLO: a HELLO starts a new session, and replies still queued
    // for the old one (this error too, when both arrive in one read) are dropped
    const e = await c.next((f) => f.stream === 0);
    expect(e.type).toBe(M.ERROR);
    c.sock.write(encodeFrame(M.HELLO, 0, 10));
    expect((await c.next((f) => f.stream === 10)).type).toBe(M.HELLO_REPLY);
    expect(c.frames.some((f) => f.stream === 9)).toBe(false);
    c.sock.write(encodeFrame(M.PING, 0, 11));
    expect((await c.next((f) => f.stream === 11)).type).toBe(M.PONG);
    c.sock.destroy();
    expect(alive()).toBe(true);
  });

  it('a client recovers by itself from a framing error', async () => {
    const client = await agent.connect();
    const errors: string[] = [];
    client.on('agent-error', (e: Error) => errors.push(e.message));
    (client as unknown as { socket: net.Socket }).socket.write(Buffer.alloc(40, 0x41));
    await new Promise((r) => setTimeout(r, 100));
    expect(errors.length).toBe(1);
    expect((await client.ping()).version).toBe(client.info!.version);
    client.close();
  });

  it('a dropped connection detaches its execs (they run on); a new connection lists them', async () => {
    const c1 = await agent.connect();
    const ex = c1.exec({ argv: 'echo $$; sleep 60' });
    const pid = Number((await new Promise<Buffer>((r) => ex.stdout.once('data', r))).toString());
    expect(pid).toBeGreaterThan(1);
    const closed = c1.closed;
    const exitRejected = expect(ex.exit).rejects.toMatchObject({ code: 'disconnected' });
    c1.close();
    expect((await closed).code).toBe('disconnected');
    await exitRejected;
    const c2 = await agent.connect();
    expect(c2.info!.pid).toBe(agent.proc.pid);
    expect(c2.info!.detached).toEqual([expect.objectContaining({ stream: ex.id, pid, exited: null })]);
    expect(processExists(pid)).toBe(true);
    const r = c2.exec({ argv: ['echo', 'again'] });
    expect((await collect(r.stdout)).toString()).toBe('again\n');
    c2.killDetached(ex.id);
    await expect.poll(() => processExists(pid), { timeout: 3000 }).toBe(false);
    c2.close();
  });

  it('reports the drop to the host when the agent dies', async () => {
    const own = await startAgent();
    const client = await own.connect();
    const ex = client.exec({ argv: ['sleep', '60'] });
    await ex.started;
    own.proc.kill('SIGKILL');
    expect((await client.closed).code).toBe('disconnected');
    await expect(ex.exit).rejects.toMatchObject({ code: 'disconnected' });
    await expect(client.ping()).rejects.toMatchObject({ code: 'disconnected' });
    await own.stop();
  });

  it('connect() waits for an agent that starts late, and times out cleanly', async () => {
    const t0 = Date.now();
    await expect(AgentClient.connect(agent.sock + '.none', { timeoutMs: 300 })).rejects.toMatchObject({ code: 'timeout' });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
    const sock = join(agent.dir, 'late.sock');
    let proc: ChildProcess | undefined;
    const timer = setTimeout(() => (proc = spawn(AGENT_BIN, ['--listen-unix', sock], { stdio: 'ignore' })), 400);
    const t1 = Date.now();
    const client = await AgentClient.connect(sock, { timeoutMs: 5000 });
    clearTimeout(timer);
    expect(Date.now() - t1).toBeGreaterThanOrEqual(390);
    expect(client.info!.pid).toBe(proc!.pid);
    client.close();
    proc!.kill('SIGKILL');
  });
  it('serves an inherited socket with --fd and exits when it closes', async () => {
    const proc = spawn(AGENT_BIN, ['--no-init', '--fd', '3'], { stdio: ['ignore', 'ignore', 'ignore', 'pipe'] });
    const client = new AgentClient(proc.stdio[3] as net.Socket);
    expect((await client.hello()).pid).toBe(proc.pid);
    const ex = client.exec({ argv: ['echo', 'via-fd'] });
    expect((await collect(ex.stdout)).toString()).toBe('via-fd\n');
    const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
    client.close();
    expect(await exited).toBe(0);
  });
});

describe('health', () => {
  it('syncs time (not applied outside PID 1) and measures drift', async () => {
    const client = await agent.connect();
    const r = await client.syncTime();
    expect(r.applied).toBe(false);
    expect(Math.abs(r.driftMs)).toBeLessThan(1000);
    const skewed = await client.syncTime(BigInt(Date.now() + 3_600_000) * 1_000_000n);
    expect(skewed.driftMs).toBeGreaterThan(3_590_000);
    await expect(client.reseed(Buffer.alloc(8))).rejects.toMatchObject({ code: 'invalid' });
    expect(await client.reseed()).toEqual({ credited: false });
    client.close();
  });

  it('measures exec round trip and binary size', async () => {
    const client = await agent.connect();
    const times: number[] = [];
    for (let i = 0; i < 200; i++) {
      const t = performance.now();
      const ex = client.exec({ argv: ['true'] });
      await ex.exit;
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    const p50 = times[100];
    const pings: number[] = [];
    for (let i = 0; i < 200; i++) {
      const t = performance.now();
      await client.ping();
      pings.push(performance.now() - t);
    }
    pings.sort((a, b) => a - b);
    const size = statSync(AGENT_BIN).size;
    console.log(
      `exec(true) p50 ${p50.toFixed(2)} ms p99 ${times[198].toFixed(2)} ms; ping p50 ${pings[100].toFixed(3)} ms; agent ${(size / 1024).toFixed(0)} KiB`,
    );
    expect(p50).toBeLessThan(50);
    expect(size).toBeLessThan(2 * 1024 * 1024);
    client.close();
  });
});

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
