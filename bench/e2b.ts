/**
 * `npm run bench:e2b [-- --runs 5 --execs 40]`: issue 27's figures, the stock `e2b` SDK
 * against Box's own API on one real service, interleaved in the same run (the machine is
 * shared and noisy: ratios are the figures, absolute times are not):
 *   create: Sandbox.create() until its first commands.run('true') is done, p50, against
 *           Box's create (POST /v1/boxes) + exec `true`, and + exec of the same argv; each
 *           create waits for the warm pool to hold a clone again, the order rotates.
 *   exec:   commands.run('true') through envd p50 (the SDK runs `/bin/bash -l -c true`),
 *           against Box's exec of `true`, and of the same argv (bash -l -c true).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Sandbox } from 'e2b';
import { startService } from '../src-server/service.js';
import { readExecStream } from '../src-server/test-support/exec-stream.js';
import { med, r1 } from './runtime-support.js';

const argv = process.argv.slice(2);
const opt = (name: string, def: number) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : def);
const RUNS = opt('--runs', 5);
const EXECS = opt('--execs', 40);
const now = () => performance.now();

process.env.BOX_IMAGE_CACHE ??= join(tmpdir(), 'box-image-cache');
const dataDir = await mkdtemp(join(tmpdir(), 'bxb-e2b-'));
const key = `bxk_bench_${randomBytes(8).toString('hex')}`;
const svc = await startService({ dataDir, apiKey: key, log: { info() {}, warn() {}, error: console.error } });
process.env.E2B_API_URL = `${svc.url}/e2b/api`;
process.env.E2B_SANDBOX_URL = `${svc.url}/e2b/sandbox`;
process.env.E2B_API_KEY = key;

const post = async (path: string, json: unknown): Promise<Response> => {
  const res = await fetch(`${svc.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(json),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res;
};
async function boxExec(id: string, command: string | string[]) {
  const { exit } = readExecStream(await (await post(`/v1/boxes/${id}/exec`, { command })).text());
  if (exit?.status !== 'succeeded') throw new Error(`exec ${String(command)} did not succeed`);
}
const appId = ((await (await post('/v1/apps/find', { name: 'bench', mint_if_missing: true })).json()) as { id: string }).id;

const rows: Record<string, number[]> = {};
const rec = (k: string, v: number) => (rows[k] ??= []).push(v);
const p50 = (k: string) => med(rows[k]!);

// Warm-up: the image (cached) and the warm template every create clones.
const warm = await Sandbox.create({ requestTimeoutMs: 900_000 });
await warm.commands.run('true');
await warm.kill();

/** Waits until the warm pool holds a clone again, so each timed create starts from the same state. */
async function settle() {
  const end = Date.now() + 60_000;
  while (Date.now() < end) {
    const res = await fetch(`${svc.url}/v1/templates`, { headers: { authorization: `Bearer ${key}` } });
    const list = ((await res.json()) as { data?: Array<{ warm_clones?: number }> }).data ?? [];
    if (list.some((t) => (t.warm_clones ?? 0) > 0) || !list.some((t) => 'warm_clones' in t)) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  await new Promise((r) => setTimeout(r, 1000));
}
const boxCreate = async (label: string, command: string | string[]) => {
  await settle();
  const t = now();
  const box = (await (await post('/v1/boxes', { app_id: appId, name: `bench-${randomBytes(4).toString('hex')}` })).json()) as { box_id: string };
  const made = now();
  await boxExec(box.box_id, command);
  rec(label, now() - t);
  rec(`${label}:create`, made - t);
  rec(`${label}:first`, now() - made);
  await post(`/v1/boxes/${box.box_id}/terminate`, {});
};
const e2bCreate = async () => {
  await settle();
  const t = now();
  const sbx = await Sandbox.create({ requestTimeoutMs: 600_000 });
  const made = now();
  await sbx.commands.run('true');
  rec('e2b_create_run', now() - t);
  rec('e2b_create_run:create', made - t);
  rec('e2b_create_run:first', now() - made);
  await sbx.kill();
};
// Interleaved, order rotating each run.
const steps = [() => boxCreate('box_create_exec', 'true'), e2bCreate, () => boxCreate('box_create_exec_bash_l', ['/bin/bash', '-l', '-c', 'true'])];
for (let i = 0; i < RUNS; i++) for (let j = 0; j < steps.length; j++) await steps[(i + j) % steps.length]!();

const sbx = await Sandbox.create({ requestTimeoutMs: 600_000 });
for (let i = 0; i < 3; i++) await sbx.commands.run('true'); // warm the paths
for (let i = 0; i < EXECS; i++) {
  let t = now();
  await boxExec(sbx.sandboxId, 'true');
  rec('box_exec_true', now() - t);
  t = now();
  await boxExec(sbx.sandboxId, ['/bin/bash', '-l', '-c', 'true']);
  rec('box_exec_bash_l', now() - t);
  t = now();
  await sbx.commands.run('true');
  rec('e2b_run_true', now() - t);
}
await sbx.kill();
await svc.close();

const out = {
  date: new Date().toISOString(),
  runs: RUNS,
  execs: EXECS,
  create_to_first_run_p50_ms: {
    e2b: r1(p50('e2b_create_run')),
    box_create_exec_true: r1(p50('box_create_exec')),
    ratio_vs_exec_true: r1((p50('e2b_create_run') / p50('box_create_exec')) * 100) / 100,
    box_create_exec_same_argv: r1(p50('box_create_exec_bash_l')),
    ratio_vs_same_argv: r1((p50('e2b_create_run') / p50('box_create_exec_bash_l')) * 100) / 100,
    // where it goes: the create request, then the first command (p50 of each part)
    parts: Object.fromEntries(
      ['e2b_create_run', 'box_create_exec', 'box_create_exec_bash_l'].map((k) => [k, { create: r1(p50(`${k}:create`)), first_run: r1(p50(`${k}:first`)) }]),
    ),
  },
  run_true_p50_ms: {
    e2b: r1(p50('e2b_run_true')),
    box_exec_true: r1(p50('box_exec_true')),
    ratio_vs_exec_true: r1((p50('e2b_run_true') / p50('box_exec_true')) * 100) / 100,
    box_exec_same_argv: r1(p50('box_exec_bash_l')),
    ratio_vs_same_argv: r1((p50('e2b_run_true') / p50('box_exec_bash_l')) * 100) / 100,
  },
};
console.log(JSON.stringify(out, null, 2));
