/**
 * `npx tsx bench/code-hops.ts`: where the time of a warm `1+1` goes (issue 25): the HTTP
 * round trip, the part spent in the box's daemon (its duration_ms: context, kernel, cell),
 * and the rest (route, the daemon link's framing, the guest agent's channel), next to exec
 * `true` on the same box; and a just-created box's first cell split the same way.
 */
import { rm } from 'node:fs/promises';
import { benchService } from './bench-service.js';
import { readExecStream } from '../src-server/test-support/exec-stream.js';
import { med, r1 } from './runtime-support.js';

const N = Number(process.argv[2] ?? 20);
const { svc, dataDir, api: call, post } = await benchService('bxh-');
const now = () => performance.now();
const appId = (await post('/v1/apps/find', { name: 'hops', mint_if_missing: true })).id;
let first: { box_id: string } | undefined;
for (let i = 0; !first; i++) first = await post('/v1/boxes', { app_id: appId, name: `w${i}` }).catch((e: Error) => (i < 3 ? undefined : Promise.reject(e)));
const firstSplit = async (id: string) => {
  const t = now();
  const x = await post(`/v1/boxes/${id}/code/run`, { code: '1+1' });
  return { total: r1(now() - t), daemon: x.duration_ms };
};
const out: Record<string, unknown> = { 'template box, first cell': await firstSplit(first.box_id) };
const fresh = [];
for (let i = 0; i < 3; i++) {
  const t = now();
  const id = (await post('/v1/boxes', { app_id: appId, name: `f${i}` })).box_id as string;
  const create = r1(now() - t);
  fresh.push({ create, ...(await firstSplit(id)), second: await firstSplit(id) });
  await post(`/v1/boxes/${id}/terminate`);
}
out['fresh boxes: create, first cell, second cell'] = fresh;
const box = first.box_id;
const total: number[] = [];
const daemon: number[] = [];
const execs: number[] = [];
for (let i = 0; i < N; i++) {
  let t = now();
  const { exit } = readExecStream(await (await call(`/v1/boxes/${box}/exec`, { command: 'true' })).text());
  if (exit?.status !== 'succeeded') throw new Error('exec');
  execs.push(now() - t);
  t = now();
  const x = await post(`/v1/boxes/${box}/code/run`, { code: '1+1' });
  total.push(now() - t);
  daemon.push(x.duration_ms);
}
out['warm 1+1 p50 ms'] = { total: r1(med(total)), 'in the daemon': r1(med(daemon)), 'host + link': r1(med(total) - med(daemon)), 'exec true': r1(med(execs)) };
console.log(JSON.stringify(out, null, 2));
await svc.close();
await rm(dataDir, { recursive: true, force: true });
