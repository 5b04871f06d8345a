/**
 * Issue 28: a guest that answers late (a busy machine: 42 TCG guests booting on 2 cores)
 * still gets connected. Each HELLO attempt waits longer than the one before; before, every
 * attempt waited 200 ms and a reply that came after it was dropped, until the deadline.
 */
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { AgentClient } from './agent-client.js';
import { buildAgent, startAgent, type RunningAgent } from './test-support/agent-harness.js';

let agent: RunningAgent;
let proxy: net.Server;
const DELAY_MS = 450;

beforeAll(async () => {
  buildAgent();
  agent = await startAgent();
  // every byte from the agent reaches the client DELAY_MS late, like a slow guest
  proxy = net.createServer((client) => {
    const up = net.createConnection(agent.sock);
    client.pipe(up);
    up.on('data', (b: Buffer) => setTimeout(() => client.writable && client.write(b), DELAY_MS));
    const end = () => (client.destroy(), up.destroy());
    client.on('close', end);
    up.on('close', end);
    client.on('error', end);
    up.on('error', end);
  });
  await new Promise<void>((r) => proxy.listen(path.join(agent.dir, 'slow.sock'), r));
});
afterAll(async () => {
  proxy?.close();
  await agent?.stop();
});

it('connects to an agent whose every answer comes later than the first attempt waits', async () => {
  const client = await AgentClient.connect(path.join(agent.dir, 'slow.sock'), { timeoutMs: 8000, helloRetryMs: 200 });
  try {
    expect(client.info?.protocol).toBeGreaterThan(0);
    expect((await client.ping()).version).toBeTruthy();
  } finally {
    client.close();
  }
}, 30_000);
