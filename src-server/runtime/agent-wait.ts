/**
 * Waiting for the guest agent on agent.sock. Uses the guest agent client
 * (src-server/guest/agent-client.ts) when it exists; otherwise speaks the placeholder
 * agent's line protocol (resources/guest/image/placeholder-agent.sh).
 * QEMU's socket chardev serves one connection at a time: close what this returns before
 * another client connects.
 */
import { existsSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BoxFolder } from './box-folder.js';

export interface AgentConnection {
  kind: 'agent' | 'placeholder';
  /** The AgentClient instance when kind is "agent". */
  client?: unknown;
  close(): void;
}

const here = dirname(fileURLToPath(import.meta.url));

async function loadAgentClient(): Promise<
  { connect(path: string, o: { timeoutMs: number }): Promise<{ hello(): Promise<unknown>; close(): void }> } | undefined
> {
  for (const f of ['agent-client.ts', 'agent-client.js']) {
    const p = join(here, '..', 'guest', f);
    if (!existsSync(p)) continue;
    const mod = await import(pathToFileURL(p).href);
    if (mod.AgentClient?.connect) return mod.AgentClient;
  }
  return undefined;
}

/** A connection to the placeholder agent; exec runs `sh -c` in the guest. */
export class PlaceholderAgent implements AgentConnection {
  readonly kind = 'placeholder' as const;
  private buf = '';
  private waiters: ((line: string) => void)[] = [];
  private lines: string[] = [];

  constructor(private readonly socket: Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => {
      this.buf += d;
      let nl: number;
      while ((nl = this.buf.indexOf('\n')) >= 0) {
        const line = this.buf.slice(0, nl);
        this.buf = this.buf.slice(nl + 1);
        const w = this.waiters.shift();
        if (w) w(line);
        else this.lines.push(line);
      }
    });
  }

  nextLine(timeoutMs: number): Promise<string> {
    const queued = this.lines.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== done);
        reject(new Error('placeholder agent: timeout'));
      }, timeoutMs);
      const done = (line: string) => {
        clearTimeout(timer);
        resolve(line);
      };
      this.waiters.push(done);
    });
  }

  send(line: string): void {
    this.socket.write(line + '\n');
  }

  async exec(command: string, timeoutMs = 30_000): Promise<{ output: string; code: number }> {
    if (command.includes('\n')) throw new Error('placeholder exec: one line only');
    this.send(`EXEC ${command}`);
    let output = '';
    for (;;) {
      const line = await this.nextLine(timeoutMs);
      if (line.startsWith('OUT ')) output = Buffer.from(line.slice(4), 'base64').toString('utf8');
      else if (line.startsWith('EXIT ')) return { output, code: Number(line.slice(5)) };
    }
  }

  close(): void {
    this.socket.destroy();
  }
}

function connectSocket(path: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(path);
    s.once('connect', () => resolve(s));
    s.once('error', reject);
  });
}

async function placeholderHello(folder: BoxFolder, deadline: number): Promise<PlaceholderAgent> {
  const agent = new PlaceholderAgent(await connectSocket(folder.agentSock));
  // Lines written while no host end was connected are dropped: ask until it answers.
  while (Date.now() < deadline) {
    agent.send('HELLO');
    try {
      const line = await agent.nextLine(Math.min(250, Math.max(1, deadline - Date.now())));
      if (line.startsWith('HELLO')) return agent;
    } catch {
      /* not up yet */
    }
  }
  agent.close();
  throw new Error('timed out waiting for the guest agent');
}

/** Resolves with a live connection once the agent answers; rejects after timeoutMs. */
export async function waitForAgent(folder: BoxFolder, opts: { timeoutMs?: number; placeholder?: boolean } = {}): Promise<AgentConnection> {
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  const AgentClient = opts.placeholder ? undefined : await loadAgentClient();
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      if (!AgentClient) return await placeholderHello(folder, deadline);
      const client = await AgentClient.connect(folder.agentSock, { timeoutMs: Math.max(1, deadline - Date.now()) });
      await client.hello();
      return { kind: 'agent', client, close: () => client.close() };
    } catch (e) {
      lastError = e;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  throw new Error(`guest agent did not answer on ${folder.agentSock}: ${String(lastError)}`);
}
