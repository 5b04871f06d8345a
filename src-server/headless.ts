/**
 * Entry of the headless service (`npm run serve`, `npm start`: `node src-server/headless.ts`).
 * Before Node loads the service's modules (~1 s of CPU), the VMs still running for this data
 * dir (after a crash, or a quit that left them running) yield the CPU to this process; they
 * get their priority back once the API answers (runtime/qemu/vm-priority.ts). Until then this
 * process competes with every running guest, so as little as possible runs first: Node strips
 * the types of this file and of its two small imports itself (node: modules only), and tsx,
 * the loader the rest of the service needs, is registered only after the VMs have yielded
 * (registered first, with `--import tsx`, it cost 0.11 s of CPU before the yield, this way
 * 0.07 s).
 */
import { entryDataDir } from './entry-data-dir.ts';
import { yieldVmsWhileStarting } from './areas/runtime/qemu/vm-priority.ts';

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
const yieldedAt = performance.now();
try {
  const { register } = await import('tsx/esm/api');
  register();
  const { main } = await import('./headless-main.ts');
  await main(() => {
    const n = restore();
    return n
      ? `${n} running box VM${n === 1 ? '' : 's'} yielded the CPU while the service started (from ${Math.round(yieldedAt)} ms after the process started) and got their priority back`
      : undefined;
  });
} catch (e) {
  restore();
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
}
