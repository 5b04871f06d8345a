/**
 * Entry of the headless service (`npm run serve`, `npm start`). Before Node loads the
 * service's modules (~1 s of CPU), the VMs still running for this data dir (after a crash,
 * or a quit that left them running) yield the CPU to this process; they get their priority
 * back once the API answers (runtime/qemu/vm-priority.ts). Only node: modules and those two
 * small ones are loaded first (the settings module, with zod, took 0.25 s of CPU).
 */
import { entryDataDir } from './entry-data-dir.js';
import { yieldVmsWhileStarting } from './runtime/qemu/vm-priority.js';

const dataDir = entryDataDir(process.argv.slice(2), process.env);
const restore = yieldVmsWhileStarting(dataDir);
try {
  const { main } = await import('./headless-main.js');
  await main(restore);
} catch (e) {
  restore();
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
}
