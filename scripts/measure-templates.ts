/**
 * Warm-template figures, each as a ratio against a baseline measured in the same run
 * (the bench scripts are owned elsewhere; this one is for the templates work):
 *   create → exec-ready p50 (clone of a template) / bare boot of the same kernel p50,
 *   fork of a running box p50, N concurrent creates (wall), idle PSS per box with N
 *   idle boxes, resume from sleep p50.
 * Usage: npx tsx scripts/measure-templates.ts [--runs 3] [--many 16]
 * Set BOX_IMAGE_CACHE to share the guest image build.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { VmConfig } from '../src-server/areas/boxes/runtime-port.js';
import { livePid, boxFolder } from '../src-server/areas/runtime/box-folder.js';
import { QemuBoxRuntime } from '../src-server/areas/runtime/qemu-box-runtime.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' }, many: { type: 'string', default: '16' } } });
const RUNS = Number(values.runs);
const MANY = Number(values.many);
const dataDir = mkdtempSync('/tmp/bx-measure-');
const cfg = (boxId: string): VmConfig => ({ boxId, hostname: boxId, image: 'debian', vcpus: 1, memoryMib: 512, diskGib: 4, mounts: [], forwards: [] });
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
const ms = (n: number) => `${n.toFixed(0)} ms`;
const timed = async (fn: () => Promise<unknown>) => {
  const t = performance.now();
  await fn();
  return performance.now() - t;
};

async function execTrue(rt: QemuBoxRuntime, id: string) {
  const ex = (await rt.agent(id)).exec({ argv: ['/bin/true'] });
  ex.stdout.resume();
  ex.stderr.resume();
  await ex.exit;
}

function pssKiB(pid: number): number {
  const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
  return m ? Number(m[1]) : NaN;
}

const warm = new QemuBoxRuntime(dataDir, { templates: true });
const cold = new QemuBoxRuntime(dataDir, { templates: false });
let n = 0;
const id = (p: string) => `${p}${n++}`;
try {
  process.stderr.write('building the template...\n');
  const build = await timed(() => warm.templates.prepare({ image: 'debian', vcpus: 1, memoryMib: 512, diskGib: 4 }));

  const bare: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const b = id('bare');
    bare.push(
      await timed(async () => {
        await cold.create(cfg(b));
        await execTrue(cold, b);
      }),
    );
    await cold.destroy(b);
  }
  const clone: number[] = [];
  const keep: string[] = [];
  for (let i = 0; i < RUNS; i++) {
    const b = id('clone');
    clone.push(
      await timed(async () => {
        await warm.create(cfg(b));
        await execTrue(warm, b);
      }),
    );
    keep.push(b);
  }
  const fork: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const f = id('fork');
    fork.push(
      await timed(async () => {
        await warm.checkpoint(keep[0]!, `cp_${f}`, true);
        await warm.cloneFromCheckpoint(`cp_${f}`, cfg(f));
      }),
    );
    await warm.destroy(f);
    await warm.deleteCheckpoint(`cp_${f}`);
  }
  const resume: number[] = [];
  const sleepMs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    sleepMs.push(await timed(() => warm.save(keep[0]!)));
    resume.push(await timed(() => warm.restore(cfg(keep[0]!))));
  }
  for (const b of keep) await warm.destroy(b);

  const many = Array.from({ length: MANY }, () => id('many'));
  const manyMs = await timed(() => Promise.all(many.map((b) => warm.create(cfg(b)))));
  await new Promise((r) => setTimeout(r, 5000)); // idle
  const pss = many.map((b) => pssKiB(livePid(boxFolder(dataDir, b))!));
  const pssAvg = pss.reduce((a, b) => a + b, 0) / pss.length / 1024;
  for (const b of many) await warm.destroy(b);

  const out = {
    template_build: ms(build),
    bare_boot_p50: ms(p50(bare)),
    create_exec_ready_p50: ms(p50(clone)),
    create_vs_bare: (p50(clone) / p50(bare)).toFixed(3),
    fork_running_p50: ms(p50(fork)),
    fork_vs_bare: (p50(fork) / p50(bare)).toFixed(3),
    sleep_p50: ms(p50(sleepMs)),
    resume_p50: ms(p50(resume)),
    resume_vs_bare: (p50(resume) / p50(bare)).toFixed(3),
    [`concurrent_${MANY}_creates`]: ms(manyMs),
    [`concurrent_${MANY}_vs_${MANY}_x_bare`]: (manyMs / (MANY * p50(bare))).toFixed(3),
    idle_pss_per_box_mib: pssAvg.toFixed(1),
    load_average: readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '),
  };
  console.log(JSON.stringify(out, null, 2));
} finally {
  await warm.close();
  await cold.close();
  rmSync(dataDir, { recursive: true, force: true });
}
