// Test helper: build the real agent and run it on the host over a unix socket.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildAgentSync } from '../../../areas/runtime/guest-image/agent-build.js';
import { AgentClient } from '../agent-client.js';

export const AGENT_BIN = resolve(import.meta.dirname, '../../../../resources/guest/build/box-agent');

/** Builds with make; throws (failing the suite) if the toolchain is missing. */
export function buildAgent(): string {
  return buildAgentSync({ quiet: true });
}

export interface RunningAgent {
  proc: ChildProcess;
  dir: string;
  sock: string;
  stderr: () => string;
  connect(): Promise<AgentClient>;
  stop(): Promise<void>;
}

export async function startAgent(extraArgs: string[] = []): Promise<RunningAgent> {
  const dir = mkdtempSync(join(tmpdir(), 'box-agent-test-'));
  const sock = join(dir, 'agent.sock');
  const proc = spawn(AGENT_BIN, ['--no-init', '--listen-unix', sock, ...extraArgs], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  proc.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const connect = () => AgentClient.connect(sock, { timeoutMs: 5000 });
  // Ready once it answers a HELLO: a test's first raw connect to a socket the agent has
  // not created yet failed with ENOENT on a loaded machine (the agent-protocol flake).
  (
    await connect().catch((e: Error) => {
      proc.kill('SIGKILL');
      throw new Error(`the test agent did not start: ${e.message} ${err}`);
    })
  ).close();
  return {
    proc,
    dir,
    sock,
    stderr: () => err,
    connect,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) {
        const gone = new Promise((r) => proc.once('exit', r));
        proc.kill('SIGKILL');
        await gone;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function collect(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of stream) parts.push(Buffer.from(c as Buffer));
  return Buffer.concat(parts);
}
