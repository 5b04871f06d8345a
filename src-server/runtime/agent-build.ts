/**
 * The one place that builds the guest agent (static, with the host's gcc and make): the
 * runtime, the image CLI, the test helpers and `box image build` all call these.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { RuntimeError } from '../boxes/runtime-port.js';
import { AGENT_BUILD_PATH, RESOURCES_DIR } from './guest-image.js';

const execFileP = promisify(execFile);
export const AGENT_SOURCE_DIR = join(RESOURCES_DIR, 'guest', 'agent');

/** Runs make (it rebuilds only what changed) and returns the binary; throws when the toolchain is missing. */
export function buildAgentSync(opts: { quiet?: boolean } = {}): string {
  execFileSync('make', ['-s', '-C', AGENT_SOURCE_DIR], { stdio: ['ignore', opts.quiet ? 'ignore' : 'inherit', 'inherit'] });
  if (!existsSync(AGENT_BUILD_PATH)) throw new Error(`make did not produce ${AGENT_BUILD_PATH}`);
  return AGENT_BUILD_PATH;
}

/**
 * Brings the guest agent binary up to date (make rebuilds only what changed, so a checkout
 * with newer agent sources never boots a stale agent); BOX_AGENT_BINARY overrides. Without
 * a toolchain an existing binary is used as it is.
 */
export async function ensureAgentBinary(): Promise<void> {
  if (process.env.BOX_AGENT_BINARY) return;
  await execFileP('make', ['-s', '-C', AGENT_SOURCE_DIR]).catch((e: Error & { stderr?: string }) => {
    if (existsSync(AGENT_BUILD_PATH)) return;
    throw new RuntimeError(`building the guest agent failed (needs gcc, make and libc6-dev): ${e.stderr || e.message}`);
  });
}
