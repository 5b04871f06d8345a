import fs from 'node:fs';
import { hasEnded, readProcStat } from '../kernel/util/proc-stat.js';

/**
 * vitest globalSetup (issue 28): the test suite leaves no QEMU behind. Every process a test
 * starts inherits BOX_TEST_RUN (QEMU keeps it across -daemonize), so the QEMUs of this run
 * are told apart from those of other runs and other people on the same machine. At the end
 * of the run any that are left are killed and the run fails, naming their command lines
 * (the data dir in them says which test left them).
 */
const QEMU = /qemu-system|box-qemu-launch/;

function qemusOfRun(run: string): { pid: number; cmd: string }[] {
  const found: { pid: number; cmd: string }[] = [];
  for (const p of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (!QEMU.test(cmd) || hasEnded(readProcStat(Number(p)))) continue;
      if (fs.readFileSync(`/proc/${p}/environ`, 'utf8').split('\0').includes(`BOX_TEST_RUN=${run}`)) found.push({ pid: Number(p), cmd });
    } catch {
      /* gone, or not ours to read */
    }
  }
  return found;
}

// vitest.config.ts loads it by path (globalSetup).
// ts-unused-exports:disable-next-line
export default function setup() {
  if (process.platform !== 'linux') return;
  const run = `${process.pid}-${Date.now()}`;
  process.env.BOX_TEST_RUN = run;
  return async () => {
    // QEMUs that were told to quit (a save, a terminate) may take a moment to exit
    const deadline = Date.now() + 10_000;
    let left = qemusOfRun(run);
    while (left.length && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      left = qemusOfRun(run);
    }
    if (!left.length) return;
    for (const q of left) {
      try {
        process.kill(q.pid, 'SIGKILL');
      } catch {
        /* exited meanwhile */
      }
    }
    throw new Error(
      `${left.length} QEMU process(es) left behind by this test run (killed now):\n${left.map((q) => `  ${q.pid}: ${q.cmd.slice(0, 300)}`).join('\n')}`,
    );
  };
}
