/**
 * `npm run bench:tls` (and the end of `npm run bench:runtime`): exec `true` over TLS / over
 * loopback HTTP (issue 39's figure, goal <= 1.2). The same service, started twice in fresh
 * data dirs: once plain HTTP on loopback, once HTTPS with its made certificate (what
 * `--listen` beyond loopback serves); one box each, `POST /v1/boxes/:id/exec` of `true` on a
 * kept-alive connection through the same node:http/node:https client, median of RUNS.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService } from '../src-server/service.js';
import { readExecStream } from '../src-server/test-support/exec-stream.js';

const RUNS = Number(process.env.BOX_BENCH_RUNS ?? 40);
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const r1 = (x: number) => Math.round(x * 10) / 10;

async function measure(tls: boolean): Promise<{ p50: number; first: number }> {
  process.env.BOX_IMAGE_CACHE ??= join(tmpdir(), 'box-image-cache');
  const dataDir = await mkdtemp(join(tmpdir(), 'box-bench-tls-'));
  const key = `bxk_bench_${randomBytes(8).toString('hex')}`;
  const svc = await startService({ dataDir, apiKey: key, tls, log: { info() {}, warn() {}, error: console.error } });
  const agent = tls ? new https.Agent({ keepAlive: true, ca: svc.ctx.config.tls!.cert }) : new http.Agent({ keepAlive: true });
  const send = (path: string, json: unknown) =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const body = JSON.stringify(json);
      const req = (tls ? https : http).request(`${svc.url}${path}`, {
        method: 'POST',
        agent,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      });
      req.once('error', reject);
      req.once('response', (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.once('end', () => resolve({ status: res.statusCode!, text }));
      });
      req.end(body);
    });
  try {
    const app = JSON.parse((await send('/v1/apps/find', { name: 'bench-tls', mint_if_missing: true })).text) as { id: string };
    const created = await send('/v1/boxes', { app_id: app.id, name: `tls-${tls}` });
    if (created.status !== 200 && created.status !== 201) throw new Error(`create: ${created.status} ${created.text}`);
    const id = (JSON.parse(created.text) as { box_id: string }).box_id;
    const exec = async () => {
      const t = performance.now();
      const r = await send(`/v1/boxes/${id}/exec`, { command: 'true' });
      if (readExecStream(r.text).exit?.status !== 'succeeded') throw new Error(`exec: ${r.status} ${r.text.slice(0, 200)}`);
      return performance.now() - t;
    };
    const first = await exec();
    for (let i = 0; i < 5; i++) await exec();
    const xs: number[] = [];
    for (let i = 0; i < RUNS; i++) xs.push(await exec());
    await send(`/v1/boxes/${id}/terminate`, {});
    return { p50: med(xs), first };
  } finally {
    agent.destroy();
    await svc.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

const plain = await measure(false);
const tls = await measure(true);
const out = {
  'exec true p50 ms, loopback HTTP': r1(plain.p50),
  'exec true p50 ms, TLS': r1(tls.p50),
  'exec true over TLS / over loopback HTTP': Math.round((tls.p50 / plain.p50) * 100) / 100,
  runs: RUNS,
  goal: '<= 1.2',
};
console.log(JSON.stringify(out, null, 2));
