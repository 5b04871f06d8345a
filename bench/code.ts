/**
 * `npm run bench:code [-- --runs 5 --warm 30 --many 16]`: the code interpreter's figures
 * (issue 25), through the HTTP API of a real service, each as a ratio against a baseline
 * measured in the same run (the machine is shared and noisy):
 *   first:  the first `1+1` of a just-created box (the create excluded), p50 / a warm `1+1`;
 *           and create + `1+1`, p50 / create + exec `true` (each create waits for the warm pool
 *           to hold a clone again, as a user's would find it)
 *   tti:    time to interactive, create → the first `node -v` output, p50 / create + exec `true`
 *   warm:   `1+1` in a warm context, p50 / exec `true` on the same box
 *   chart:  a matplotlib line chart to PNG, p50 / exec `true`; and what its data costs
 *           (charts.py's formatter): the same cell with the formatter on / off, alternating
 *   many:   idle PSS per box with N boxes that each ran a cell (live kernel) / the same
 *           boxes idle before their first cell
 * The first create is a warm-up that also builds the template (with its started kernel).
 */
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { benchService } from './bench-service.js';
import { readExecStream } from '../src-server/test-support/exec-stream.js';
import { boxQemuPids, med, pssSplitMiB, r1, r3, sumPssMiB } from './runtime-support.js';

const argv = process.argv.slice(2);
const opt = (name: string, def: number) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : def);
const RUNS = opt('--runs', 5);
const WARM = opt('--warm', 30);
const MANY = opt('--many', 16);
const now = () => performance.now();

const { svc, dataDir, api, post } = await benchService('bxc-');
const exec = async (id: string, command: string) => {
  const { exit } = readExecStream(await (await api(`/v1/boxes/${id}/exec`, { command })).text());
  if (exit?.status !== 'succeeded') throw new Error(`exec ${command} failed`);
};
const run = async (id: string, code: string) => {
  const x = await post(`/v1/boxes/${id}/code/run`, { code });
  if (x.error) throw new Error(`run ${code}: ${x.error.name}: ${x.error.value}`);
  return x;
};
const timed = async (f: () => Promise<unknown>) => {
  const t = now();
  await f();
  return now() - t;
};
const terminate = (id: string) => post(`/v1/boxes/${id}/terminate`);

const appId = (await post('/v1/apps/find', { name: 'bench-code', mint_if_missing: true })).id;
const out: Record<string, Record<string, unknown>> = {};

// warm-up: builds the template (its kernel started) and the warm pool
const t = now();
// (a template build under TCG can outlast fetch's 300 s headers timeout: ask again, the build goes on)
let first: { box_id: string } | undefined;
for (let i = 0; !first; i++)
  first = await post('/v1/boxes', { app_id: appId, name: `warmup${i}` }).catch((e: Error) => (i < 3 ? undefined : Promise.reject(e)));
await run(first.box_id, '1+1');
const warmupS = (now() - t) / 1000;
await terminate(first.box_id);

/** Waits until the warm pool holds a clone again, so each timed create starts from the same state. */
async function settle() {
  const end = Date.now() + 120_000;
  while (Date.now() < end) {
    const list = ((await (await api('/v1/templates')).json()) as { data?: Array<{ warm_clones?: number }> }).data ?? [];
    if (list.some((t) => (t.warm_clones ?? 0) > 0) || !list.some((t) => 'warm_clones' in t)) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  await new Promise((r) => setTimeout(r, 1000));
}
const create = async (name: string) => (await post('/v1/boxes', { app_id: appId, name })).box_id as string;
const firstCell: number[] = [];
const cellAlone: number[] = [];
const firstExec: number[] = [];
const tti: number[] = [];
const node = async (id: string) => {
  const { stdout, exit } = readExecStream(await (await api(`/v1/boxes/${id}/exec`, { command: ['node', '-v'] })).text());
  if (exit?.status !== 'succeeded' || !/^v\d+\./.test(stdout)) throw new Error(`node -v: ${stdout}`);
};
// interleaved, the order rotating each run
const steps = [
  async (i: number) => {
    let id = '';
    firstExec.push(await timed(async () => void ((id = await create(`e${i}`)), await exec(id, 'true'))));
    await terminate(id);
  },
  async (i: number) => {
    const t0 = now();
    const id = await create(`c${i}`);
    cellAlone.push(await timed(() => run(id, '1+1')));
    firstCell.push(now() - t0);
    await terminate(id);
  },
  async (i: number) => {
    let id = '';
    tti.push(await timed(async () => void ((id = await create(`n${i}`)), await node(id))));
    await terminate(id);
  },
];
for (let i = 0; i < RUNS; i++)
  for (let j = 0; j < steps.length; j++) {
    await settle();
    await steps[(i + j) % steps.length]!(i);
  }

const box = (await post('/v1/boxes', { app_id: appId, name: 'warm' })).box_id as string;
await run(box, '1+1');
await exec(box, 'true');
const warm: number[] = [];
const inDaemon: number[] = [];
const execs: number[] = [];
for (let i = 0; i < WARM; i++) {
  execs.push(await timed(() => exec(box, 'true')));
  warm.push(await timed(async () => void inDaemon.push((await run(box, '1+1')).duration_ms)));
}
const chart: number[] = [];
const CHART = 'import matplotlib.pyplot as plt\nplt.figure()\nplt.plot(range(100), [i * i for i in range(100)])\nplt.show()';
for (let i = 0; i < Math.max(5, RUNS); i++) {
  chart.push(
    await timed(async () => {
      const x = await run(box, CHART);
      if (!x.results.some((r: Record<string, unknown>) => r['image/png'])) throw new Error('no PNG');
    }),
  );
}
// the chart's data beside its PNG: the same cell with charts.py's formatter on and off, alternating
const FORMATTER = "get_ipython().display_formatter.formatters['application/vnd.box.chart+json'].enabled";
const withData: number[] = [];
const withoutData: number[] = [];
for (let i = 0; i < Math.max(10, RUNS * 2); i++) {
  for (const on of i % 2 ? [true, false] : [false, true]) {
    await run(box, `${FORMATTER} = ${on ? 'True' : 'False'}`);
    const ms = await timed(async () => {
      const x = await run(box, CHART);
      if (Boolean(x.results.some((r: Record<string, unknown>) => r['application/vnd.box.chart+json'])) !== on)
        throw new Error(`chart data ${on ? 'missing' : 'present'}`);
    });
    (on ? withData : withoutData).push(ms);
  }
}
await run(box, `${FORMATTER} = True`);
out.first = {
  'first 1+1 of a new box, the create excluded, p50 ms': r1(med(cellAlone)),
  'baseline: a warm 1+1, p50 ms': r1(med(warm)),
  'ratio (goal <= 3)': r3(med(cellAlone) / med(warm)),
  'create + 1+1, p50 ms': r1(med(firstCell)),
  'baseline: create + exec true, p50 ms': r1(med(firstExec)),
  'create + 1+1 / create + exec true': r3(med(firstCell) / med(firstExec)),
  'template build + first box + first cell (warm-up), s': r1(warmupS),
};
out.tti = {
  'create → first `node -v` output, p50 ms': r1(med(tti)),
  'baseline: create + exec true, p50 ms': r1(med(firstExec)),
  ratio: r3(med(tti) / med(firstExec)),
};
out.warm = {
  '1+1 warm, p50 ms (goal <= 20)': r1(med(warm)),
  'baseline: exec true, p50 ms': r1(med(execs)),
  'ratio (goal <= 2)': r3(med(warm) / med(execs)),
  '1+1 warm: of it in the box (daemon + kernel, its duration_ms), p50 ms': r1(med(inDaemon)),
  'matplotlib line chart to PNG, p50 ms (goal <= 400)': r1(med(chart)),
  'chart / exec true': r3(med(chart) / med(execs)),
  'chart with its data (application/vnd.box.chart+json), p50 ms': r1(med(withData)),
  'baseline: the same chart, data formatter off, p50 ms': r1(med(withoutData)),
  'chart data cost: with / without': r3(med(withData) / med(withoutData)),
};
await terminate(box);

const many = await Promise.all(Array.from({ length: MANY }, (_, i) => post('/v1/boxes', { app_id: appId, name: `many${i}` })));
await new Promise((r) => setTimeout(r, 15_000));
// the boxes' own QEMUs: the warm-pool clone and the restore spare waiting beside them are not boxes
const before = sumPssMiB(boxQemuPids(dataDir)) / MANY;
const splitBefore = pssSplitMiB(boxQemuPids(dataDir));
await Promise.all(many.map((b) => run(b.box_id, 'x = np.arange(1000).sum()\nx')));
await new Promise((r) => setTimeout(r, 15_000));
const pids = boxQemuPids(dataDir);
const after = sumPssMiB(pids) / MANY;
const splitAfter = pssSplitMiB(pids);
const perBox = (s: { guest: number; tcg: number; qemu: number }) => `guest RAM ${r1(s.guest / MANY)}, TCG code ${r1(s.tcg / MANY)}, QEMU ${r1(s.qemu / MANY)}`;
out.many = {
  [`idle PSS per box with a live kernel (ran a cell), ${MANY} boxes, MiB (goal <= 60)`]: r1(after),
  'baseline: the same boxes idle before their first cell, MiB': r1(before),
  ratio: r3(after / before),
  'per box before its cell, MiB': perBox(splitBefore),
  'per box after its cell, MiB': perBox(splitAfter),
  "after, without TCG's translated code (none under KVM), MiB": r1((after * MANY - splitAfter.tcg) / MANY),
  'QEMU processes counted': pids.length,
};
await Promise.all(many.map((b) => terminate(b.box_id)));

out.load = { 'loadavg at the end': readFileSync('/proc/loadavg', 'utf8').trim() };
console.log(JSON.stringify(out, null, 2));
await svc.close();
await rm(dataDir, { recursive: true, force: true });
