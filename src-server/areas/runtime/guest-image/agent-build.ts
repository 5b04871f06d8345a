/**
 * The one place that builds the guest agent (static, with the host's gcc and make): the
 * runtime, the image CLI, the test helpers and `box image build` all call these. It also
 * builds the host-side helpers (resources/guest/ramdelta): the box-ramdelta filter that
 * keeps a template clone's saved state down to the pages the box changed, and the
 * box-qemu-launch wrapper QEMU starts through.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { RuntimeError } from '../../boxes/ports.js';
import { AGENT_BUILD_PATH, RESOURCES_DIR } from './guest-image.js';
import { boxEnv } from '../../../platform/settings.js';

const execFileP = promisify(execFile);
export const AGENT_SOURCE_DIR = join(RESOURCES_DIR, 'guest', 'agent');
const RAMDELTA_SOURCE_DIR = join(RESOURCES_DIR, 'guest', 'ramdelta');
const RAMDELTA_PATH = join(RESOURCES_DIR, 'guest', 'build', 'box-ramdelta');
const LAUNCH_PATH = join(RESOURCES_DIR, 'guest', 'build', 'box-qemu-launch');

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
  if (boxEnv().agentBinary) return;
  await execFileP('make', ['-s', '-C', AGENT_SOURCE_DIR]).catch((e: Error & { stderr?: string }) => {
    if (existsSync(AGENT_BUILD_PATH)) return;
    throw new RuntimeError(`building the guest agent failed (needs gcc, make and libc6-dev): ${e.stderr || e.message}`);
  });
  await ensureRamDelta();
}

let hostHelpers: Promise<void> | undefined;
/** Makes the host-side helpers (resources/guest/ramdelta) once per process; make rebuilds only what changed. */
const makeHostHelpers = () =>
  (hostHelpers ??= execFileP('make', ['-s', '-C', RAMDELTA_SOURCE_DIR]).then(
    () => undefined,
    () => undefined, // no toolchain: whatever is already built is used
  ));

/**
 * The box-ramdelta filter. Undefined when it cannot be built or BOX_RAMDELTA=0 (for
 * comparisons): clones then save their whole RAM (correct, slower, and a resumed clone no
 * longer shares the template's pages).
 */
export async function ensureRamDelta(): Promise<string | undefined> {
  if (boxEnv().ramDelta === false) return undefined;
  await makeHostHelpers();
  return existsSync(RAMDELTA_PATH) ? RAMDELTA_PATH : undefined;
}

/**
 * box-qemu-launch (launch.c: QEMU without transparent huge pages, ~4 MiB less private
 * memory per idle box). Undefined when it cannot be built or BOX_QEMU_THP=1 (for
 * comparisons): QEMU is then started directly.
 */
export async function qemuLauncher(): Promise<string | undefined> {
  if (boxEnv().qemuThp) return undefined;
  await makeHostHelpers();
  return existsSync(LAUNCH_PATH) ? LAUNCH_PATH : undefined;
}
