// EXEC with connect (PROTOCOL.md): the agent joins a stream to a TCP port in the box itself,
// no process; argv runs only when nothing listens there. A real agent binary on the host.
import { existsSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AgentClient } from './agent-client.js';
import { buildAgent, collect, type RunningAgent, startAgent } from './test-support/agent-harness.js';

let agent: RunningAgent;
const clients = new Set<AgentClient>();
const servers = new Set<net.Server>();

beforeAll(async () => {
  buildAgent();
  agent = await startAgent();
});
afterEach(() => {
  for (const c of clients) c.close();
  clients.clear();
  for (const s of servers) s.close();
  servers.clear();
});
afterAll(async () => {
  await agent?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function connect() {
  const c = await AgentClient.connect(agent.sock, { timeoutMs: 5000 });
  clients.add(c);
  return c;
}

/** A TCP server on 127.0.0.1 whose connections the test drives; resolves with its port. */
async function server() {
  const conns: net.Socket[] = [];
  const received: string[] = [];
  const ended: boolean[] = [];
  const closed: boolean[] = [];
  const s = net.createServer((sock) => {
    const i = conns.push(sock) - 1;
    received[i] = '';
    sock.setEncoding('utf8');
    sock.on('data', (d: string) => (received[i] += d));
    sock.on('end', () => (ended[i] = true));
    sock.on('close', () => (closed[i] = true));
    sock.on('error', () => {});
    sock.allowHalfOpen = true;
  });
  servers.add(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return { port: (s.address() as net.AddressInfo).port, conns, received, ended, closed };
}

async function until(cond: () => boolean, ms = 5000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(10);
  }
}

describe('EXEC connect: a port forward by the agent', () => {
  it('carries bytes both ways, no process runs, and ends with exit 0 when the peer closes', async () => {
    const srv = await server();
    const c = await connect();
    const marker = join(agent.dir, 'argv-ran');
    const ex = c.exec({ argv: ['/bin/sh', '-c', `touch ${marker}`], stdin: true, connectPort: srv.port });
    expect((await ex.started).pid).toBe(0); // no process
    await until(() => srv.conns.length === 1);
    await ex.writeStdin(Buffer.from('ping\n'));
    await until(() => srv.received[0] === 'ping\n');
    const out = collect(ex.stdout);
    srv.conns[0]!.write('pong\n');
    srv.conns[0]!.end();
    expect((await out).toString()).toBe('pong\n');
    expect(await ex.exit).toEqual({ exitCode: 0, signal: null, timedOut: false });
    expect(existsSync(marker)).toBe(false);
  });

  it('stdin EOF half-closes the connection: the peer sees its end and can still answer', async () => {
    const srv = await server();
    const c = await connect();
    const ex = c.exec({ argv: ['false'], stdin: true, connectPort: srv.port });
    await ex.writeStdin(Buffer.from('x'.repeat(600_000))); // more than the stdin window
    await ex.closeStdin();
    await until(() => srv.ended[0] === true);
    expect(srv.received[0]!.length).toBe(600_000);
    const out = collect(ex.stdout);
    srv.conns[0]!.end('bye');
    expect((await out).toString()).toBe('bye');
    expect((await ex.exit).exitCode).toBe(0);
  });

  it('runs argv when nothing listens on the port', async () => {
    const srv = await server();
    const port = srv.port;
    await new Promise((r) => servers.values().next().value!.close(r)); // nothing listens now
    const c = await connect();
    const ex = c.exec({ argv: ['/bin/sh', '-c', 'echo ran; exit 3'], stdin: true, connectPort: port });
    expect((await ex.started).pid).toBeGreaterThan(0);
    const [out, exit] = await Promise.all([collect(ex.stdout), ex.exit]);
    expect(out.toString()).toBe('ran\n');
    expect(exit.exitCode).toBe(3);
  });

  it('a kill closes the connection (the peer sees it) and ends the stream', async () => {
    const srv = await server();
    const c = await connect();
    const ex = c.exec({ argv: ['false'], stdin: true, connectPort: srv.port });
    await until(() => srv.conns.length === 1);
    ex.signal('SIGKILL');
    await until(() => srv.closed[0] === true || srv.ended[0] === true);
    expect((await ex.exit).exitCode).toBe(0);
  });

  it('outlives a host session: detached it holds what the peer sends, attach delivers it, then EOF and exit', async () => {
    const srv = await server();
    const c1 = await connect();
    const ex = c1.exec({ argv: ['false'], stdin: true, connectPort: srv.port });
    ex.stdout.on('error', () => {});
    await until(() => srv.conns.length === 1);
    c1.close();
    await c1.closed;
    await sleep(100);
    srv.conns[0]!.write('while away\n');
    await sleep(100);
    const c2 = await connect();
    const listed = c2.info!.detached.find((d) => d.stream === ex.id);
    expect(listed).toMatchObject({ pid: 0, exited: null, stdin: true });
    const again = c2.attach(ex.id);
    await again.started;
    await again.writeStdin(Buffer.from('back\n'));
    await until(() => srv.received[0] === 'back\n');
    const out = collect(again.stdout);
    srv.conns[0]!.end('last\n');
    expect((await out).toString()).toBe('while away\nlast\n');
    expect((await again.exit).exitCode).toBe(0);
    expect((await c2.hello()).detached.some((d) => d.stream === ex.id)).toBe(false);
  });

  it('a RESET of the detached stream (what a clone does with its parent’s) closes the connection', async () => {
    const srv = await server();
    const c1 = await connect();
    const ex = c1.exec({ argv: ['false'], stdin: true, connectPort: srv.port });
    ex.stdout.on('error', () => {});
    await until(() => srv.conns.length === 1);
    c1.close();
    await c1.closed;
    await sleep(100);
    const c2 = await connect();
    expect(c2.info!.detached.some((d) => d.stream === ex.id)).toBe(true);
    c2.killDetached(ex.id);
    await until(() => srv.ended[0] === true);
    expect((await c2.hello()).detached.some((d) => d.stream === ex.id)).toBe(false);
  });
});
