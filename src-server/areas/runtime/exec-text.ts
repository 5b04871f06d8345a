/**
 * A command run to completion through the guest agent, its output collected as text.
 * Its own module so that agent-wait.ts (which mounts shares after a restore) and shares.ts
 * (which runs the mount script) both use it without importing each other.
 */
import type { AgentClient } from '../../platform/guest/agent-client.js';

/** Runs a command to completion and returns its combined output (small outputs: tests, probes). */
export async function execText(
  client: AgentClient,
  argv: string[] | string,
  timeoutMs = 30_000,
): Promise<{ stdout: string; stderr: string; exitCode: number | null }> {
  const ex = client.exec({ argv, timeoutMs });
  const collect = async (s: NodeJS.ReadableStream) => {
    const chunks: Buffer[] = [];
    for await (const c of s) chunks.push(Buffer.from(c as Buffer));
    return Buffer.concat(chunks).toString('utf8');
  };
  const [stdout, stderr, exit] = await Promise.all([collect(ex.stdout), collect(ex.stderr), ex.exit]);
  return { stdout, stderr, exitCode: exit.exitCode };
}
