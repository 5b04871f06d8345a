/**
 * `npm run guest:build [-- --data-dir <dir>] [--kernel stock|tiny] [--no-agent]`: builds
 * the guest agent (if its Makefile exists) and the default guest image, printing progress.
 */
import { AGENT_SOURCE_DIR, buildAgentSync } from './agent-build.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ensureGuestImage, kernelFlavour, type KernelFlavour } from './guest-image.js';
import { defaultDataDir } from '../../../platform/settings.js';

const argIdx = process.argv.indexOf('--data-dir');
const kIdx = process.argv.indexOf('--kernel');
const kernel = kernelFlavour(kIdx > 0 ? (process.argv[kIdx + 1] as KernelFlavour) : undefined);
const dataDir = argIdx > 0 ? process.argv[argIdx + 1] : defaultDataDir();

if (existsSync(join(AGENT_SOURCE_DIR, 'Makefile')) && !process.argv.includes('--no-agent')) {
  console.log(`building the guest agent (make -C ${AGENT_SOURCE_DIR})`);
  buildAgentSync();
}

const started = Date.now();
let last = '';
const image = await ensureGuestImage({
  dataDir,
  kernel,
  onProgress: (p) => {
    const line = `[${String(p.percent).padStart(3)}%] ${p.phase}: ${p.message}`;
    if (line !== last) console.log(line);
    last = line;
  },
});
console.log(JSON.stringify({ ...image, seconds: (Date.now() - started) / 1000 }, null, 2));
