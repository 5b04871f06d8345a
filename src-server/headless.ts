/**
 * Entry of the headless service (`npm run serve`, `npm start`). Before Node loads the
 * service's modules (~1 s of CPU), the VMs still running for this data dir (after a crash,
 * or a quit that left them running) yield the CPU to this process; they get their priority
 * back once the API answers (runtime/qemu/vm-priority.ts). Only node: modules and those two
 * small ones are loaded first (the settings module, with zod, took 0.25 s of CPU).
 */
import { entryDataDir } from './entry-data-dir.js';
import { yieldVmsWhileStarting } from './runtime/qemu/vm-priority.js';

// Its native modules (better-sqlite3) are built for the project's Node 22, the one npm
// scripts run; an older Node crashes on them without a word (a segfault on Node 20).
if (Number(process.versions.node.split('.')[0]) < 22) {
  console.error(
    `The Box service needs Node 22 or later, the project's own; this is Node ${process.versions.node} (${process.execPath}). Start it with \`npm start\` or \`npm run serve\`, which run the project's Node.`,
  );
  process.exit(1);
}
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
