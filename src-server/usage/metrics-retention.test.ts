import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeRuntime } from '../test-support/fake-runtime.js';
import { startTestService, type TestService } from '../test-support/harness.js';

let svc: TestService;
let rt: FakeRuntime;
let boxId: string;
const now = Date.now();

/**
 * Two days of samples: every 10 minutes until the last hour, then every 10 seconds (the
 * default interval). CPU time grows by 0.25 s per second, so every point reads 0.25 vCPU.
 */
beforeAll(async () => {
  svc = await startTestService({ runtime: (d) => (rt = new FakeRuntime(d)), tuning: { metricsEveryMs: 3_600_000 } });
  const appId = (await (await svc.api('/v1/apps/find', { method: 'POST', json: { name: 'r', mint_if_missing: true } })).json()).id;
  boxId = (await (await svc.api('/v1/boxes', { method: 'POST', json: { app_id: appId, name: 'long' } })).json()).box_id;
  const start = now - 2 * 86400_000;
  const times: number[] = [];
  for (let t = start; t < now - 3600_000; t += 600_000) times.push(t);
  for (let t = now - 3600_000; t <= now; t += 10_000) times.push(t);
  for (const t of times) {
    rt.usage.set(boxId, { cpuSeconds: (t - start) / 4000, rssBytes: 200_000_000 });
    rt.disk.set(boxId, 1_000_000 + Math.floor((t - start) / 1000));
    await svc.ctx.services.metricsSampler.tick(t);
  }
});
afterAll(() => svc.close());

const series = async (range: string) =>
  (await (await svc.api(`/v1/boxes/${boxId}/metrics?range=${range}`)).json()).data as { at: string; cpu_used_vcpu: number | null; memory_used_bytes: number }[];

describe('metrics retention and downsampling', () => {
  it('keeps raw samples for 24 hours only', async () => {
    const oldest = (await svc.ctx.db.get('SELECT MIN(at) AS at FROM box_metrics')) as { at: number };
    expect(oldest.at).toBeGreaterThanOrEqual(now - 24 * 3600_000);
    const rollup = (await svc.ctx.db.get('SELECT MIN(bucket) AS b FROM box_metrics_5m')) as { b: number };
    expect(rollup.b).toBeLessThan(now - 47 * 3600_000);
  });

  it('every range answers at most 300 evenly spaced points inside its window', async () => {
    const expectations: [string, number, number][] = [
      ['1h', 3600, 15],
      ['6h', 6 * 3600, 90],
      ['24h', 86400, 300],
      ['7d', 7 * 86400, 2400],
    ];
    for (const [range, seconds, width] of expectations) {
      const data = await series(range);
      expect(data.length).toBeGreaterThan(0);
      expect(data.length).toBeLessThanOrEqual(300);
      const at = data.map((p) => Date.parse(p.at));
      expect(at[0]).toBeGreaterThanOrEqual(now - seconds * 1000 - width * 1000);
      for (const t of at) expect(t % (width * 1000)).toBe(0);
      for (let i = 1; i < at.length; i++) expect(at[i]! - at[i - 1]!).toBeGreaterThanOrEqual(width * 1000);
    }
    expect((await series('1h')).length).toBeGreaterThan(230); // 10 s samples fill nearly every 15 s bucket
  });

  it('7d reaches back two days through the rollups; averages stay exact', async () => {
    const week = await series('7d');
    expect(Date.parse(week[0]!.at)).toBeLessThan(now - 47 * 3600_000);
    const cpus = week.map((p) => p.cpu_used_vcpu).filter((c) => c !== null);
    expect(cpus.length).toBeGreaterThan(60);
    for (const c of cpus) expect(c).toBeCloseTo(0.25, 3);
    for (const p of week) expect(p.memory_used_bytes).toBe(200_000_000);
  });
});
