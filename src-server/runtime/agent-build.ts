/** The one place the service builds the guest agent (static, with the host's gcc and make). */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { RuntimeError } from '../boxes/runtime-port.js';
import { AGENT_BUILD_PATH, RESOURCES_DIR } from './guest-image.js';

const execFileP = promisify(execFile);

/** Builds the guest agent from resources/ when no binary is there yet (BOX_AGENT_BINARY overrides). */
export async function ensureAgentBinary(): Promise<void> {
  if (process.env.BOX_AGENT_BINARY || existsSync(AGENT_BUILD_PATH)) return;
  await execFileP('make', ['-s', '-C', join(RESOURCES_DIR, 'guest', 'agent')]).catch((e: Error & { stderr?: string }) => {
    throw new RuntimeError(`building the guest agent failed (needs gcc, make and libc6-dev): ${e.stderr || e.message}`);
  });
}
