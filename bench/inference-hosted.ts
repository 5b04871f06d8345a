/**
 * Hosted tools in real boxes (issue 34): `npm run bench:hosted [-- --runs 8 --warm 30]`.
 * A real service (QEMU; TCG here), `box/echo` driving the loop, each figure against a
 * baseline measured in the same run; every create starts from a refilled warm pool:
 *   first:    a shell call on a new `auto` box (responses.create, `uname -s`), p50, against
 *             create + exec `uname -s` through the API (goal: <= create + exec ready + 50 ms);
 *             and a code_interpreter call on a new `auto` box against create + the same cell
 *             through the API (the first cell of a box opens its kernel link in both).
 *   overhead: a code_interpreter turn continuing in its box (previous_response_id), p50,
 *             minus what it is made of, measured alternately on the same box: two box/echo
 *             turns (the model is called for the tool call, then for the answer) and the cell
 *             through the API (goal: < 5 ms).
 */
import { benchService } from './bench-service.js';
import { readExecStream } from '../src-server/test-support/exec-stream.js';
import { med, r1 } from './runtime-support.js';

const argv = process.argv.slice(2);
const opt = (name: string, def: number) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : def);
const RUNS = opt('--runs', 8);
const WARM = opt('--warm', 30);
const now = () => performance.now();
const timed = async <T>(f: () => Promise<T>): Promise<[number, T]> => {
  const t = now();
  const v = await f();
  return [now() - t, v];
};

process.env.BOX_CODE_WARM = '1'; // the default template's warm kernel, as the product ships
const { svc, api, post } = await benchService('bxhosted-');
// a failed run still stops its boxes: the service's close terminates their QEMUs
process.on('uncaughtException', (e) => void svc.close().finally(() => (console.error(e), process.exit(1))));
process.on('unhandledRejection', (e) => void svc.close().finally(() => (console.error(e), process.exit(1))));
const appId = (await post('/v1/apps/find', { name: 'bench-hosted', mint_if_missing: true })).id;
const CODE = { type: 'code_interpreter', container: { type: 'auto' } };
const SHELL = { type: 'shell', environment: { type: 'container_auto' } };
type Item = { type: string; container_id?: string; environment?: { container_id?: string } };
type Resp = { id: string; status: string; output: Item[] };

const respond = async (body: Record<string, unknown>): Promise<Resp> => {
  const r = (await post('/v1/responses', { model: 'box/echo', ...body })) as Resp;
  if (r.status !== 'completed') throw new Error(`response ${r.id}: ${r.status}`);
  return r;
};
const boxIdOf = (r: Resp) => {
  for (const o of r.output) {
    const id = o.container_id ?? o.environment?.container_id;
    if (id) return id;
  }
  throw new Error(`response ${r.id} made no box`);
};
const create = async (name: string): Promise<string> => (await post('/v1/boxes', { app_id: appId, name })).box_id;
const exec = async (id: string, command: string) => {
  const { exit } = readExecStream(await (await api(`/v1/boxes/${id}/exec`, { command })).text());
  if (exit?.status !== 'succeeded') throw new Error(`exec ${command} failed`);
};
const cell = async (id: string, code: string) => {
  const x = await post(`/v1/boxes/${id}/code/run`, { code });
  if (x.error) throw new Error(`run ${code}: ${x.error.name}: ${x.error.value}`);
};
const terminate = (id: string) => post(`/v1/boxes/${id}/terminate`);
/** Every create starts from a full warm pool, the baseline's and the hosted tool's alike. */
const poolRefilled = async () => {
  for (const end = now() + 60_000; now() < end; await new Promise((r) => setTimeout(r, 100))) {
    const { data } = (await (await api('/v1/templates')).json()) as { data: { warm_clones: number; volume_slots: boolean }[] };
    if (data.some((t) => !t.volume_slots && t.warm_clones > 0)) return;
  }
  throw new Error('the warm pool did not refill within 60 s');
};

// warm-up: builds the template (its kernel started) and fills the warm pool
const t0 = now();
let warm: string | undefined;
for (let i = 0; !warm; i++) warm = await create(`warmup${i}`).catch((e: Error) => (i < 3 ? undefined : Promise.reject(e)));
await cell(warm, '1+1');
await terminate(warm);
const warmupS = (now() - t0) / 1000;

// first: a new auto box per call, alternating with the API baseline
const shellFirst: number[] = [];
const execFirst: number[] = [];
const codeFirst: number[] = [];
const cellFirst: number[] = [];
for (let i = 0; i < RUNS; i++) {
  await poolRefilled();
  const [b, id] = await timed(async () => {
    const id = await create(`base${i}`);
    await exec(id, 'uname -s');
    return id;
  });
  execFirst.push(b);
  await terminate(id);
  await poolRefilled();
  const [s, r] = await timed(() => respond({ input: 'uname -s', tools: [SHELL] }));
  shellFirst.push(s);
  await terminate(boxIdOf(r));
  await poolRefilled();
  const [c, id2] = await timed(async () => {
    const id = await create(`cell${i}`);
    await cell(id, 'print(6*7)');
    return id;
  });
  cellFirst.push(c);
  await terminate(id2);
  await poolRefilled();
  const [h, r2] = await timed(() => respond({ input: 'print(6*7)', tools: [CODE] }));
  codeFirst.push(h);
  await terminate(boxIdOf(r2));
}

// overhead: turns in one box, alternating with their parts
let prev = await respond({ input: 'print(1)', tools: [CODE] });
const box = boxIdOf(prev);
const turn: number[] = [];
const model: number[] = [];
const cells: number[] = [];
for (let i = 0; i < WARM; i++) {
  const [h, r] = await timed(() => respond({ input: 'print(6*7)', tools: [CODE], previous_response_id: prev.id }));
  if (boxIdOf(r) !== box) throw new Error('the continuation left its box');
  turn.push(h);
  prev = r;
  model.push((await timed(() => respond({ input: 'print(6*7)' })))[0] + (await timed(() => respond({ input: 'print(6*7)' })))[0]);
  cells.push((await timed(() => cell(box, 'print(6*7)')))[0]);
}
await terminate(box);

const out = {
  runs: RUNS,
  warm_turns: WARM,
  warmup_s: r1(warmupS),
  first_call: {
    shell_on_new_auto_box_p50_ms: r1(med(shellFirst)),
    create_plus_exec_p50_ms: r1(med(execFirst)),
    shell_minus_baseline_ms: r1(med(shellFirst) - med(execFirst)),
    code_interpreter_on_new_auto_box_p50_ms: r1(med(codeFirst)),
    create_plus_cell_p50_ms: r1(med(cellFirst)),
    code_minus_baseline_ms: r1(med(codeFirst) - med(cellFirst)),
  },
  overhead: {
    hosted_turn_p50_ms: r1(med(turn)),
    two_echo_turns_p50_ms: r1(med(model)),
    cell_p50_ms: r1(med(cells)),
    overhead_ms: r1(med(turn) - med(model) - med(cells)),
  },
};
console.log(JSON.stringify(out, null, 2));
await svc.close();
