import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeRuntime } from '../test-support/fake-runtime.js';
import { errorOf, startTestService, type TestService } from '../test-support/harness.js';

const RATES = { vcpu_second_usd_nanos: 1000, memory_gib_second_usd_nanos: 100, input_token_usd_nanos: 10, output_token_usd_nanos: 30 };
const MIB = 1024 * 1024;

let svc: TestService;
let rt: FakeRuntime;
let appId: string;
let orgId: string;
/** The sampler's controlled clock: starts 50 minutes ago and only moves forward. */
let clock = Date.now() - 50 * 60_000;

beforeAll(async () => {
  svc = await startTestService({
    runtime: (d) => (rt = new FakeRuntime(d)),
    tuning: { metricsEveryMs: 3_600_000, usageRates: RATES },
  });
  appId = (await (await svc.api('/v1/apps/find', { method: 'POST', json: { name: 'usage', mint_if_missing: true } })).json()).id;
  orgId = (await (await svc.api('/v1/organization')).json()).org_id;
});
afterAll(() => svc.close());

const post = (p: string, json: unknown = {}) => svc.api(p, { method: 'POST', json });
const create = async (name: string, size = 's') => (await (await post('/v1/boxes', { app_id: appId, name, size })).json()) as { box_id: string };
const credits = async () => (await (await svc.api('/v1/organization')).json()).credits_usd_nanos as number;
const setCredits = (n: number) => svc.api('/v1/organization', { method: 'PATCH', json: { credits_usd_nanos: n } });
const tick = async (advanceMs: number) => await svc.ctx.services.metricsSampler.tick((clock += advanceMs));
const windowQuery = () => `from=${new Date(clock - 3 * 3600_000).toISOString()}&to=${new Date(clock + 1000).toISOString()}`;

describe('metrics sampler and GET /v1/boxes/{box_id}/metrics', () => {
  it('stores CPU (delta of CPU time over elapsed time), memory and disk per tick', async () => {
    const box = await create('metered');
    rt.usage.set(box.box_id, { cpuSeconds: 100, rssBytes: 300 * MIB });
    rt.disk.set(box.box_id, 2_000_000_000);
    await tick(0);
    rt.usage.set(box.box_id, { cpuSeconds: 130, rssBytes: 310 * MIB });
    await tick(60_000);
    const res = await svc.api(`/v1/boxes/${box.box_id}/metrics?range=1h`);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.range).toBe('1h');
    const withCpu = body.data.filter((p: { cpu_used_vcpu: number | null }) => p.cpu_used_vcpu !== null);
    expect(withCpu).toHaveLength(1);
    expect(withCpu[0]).toMatchObject({ cpu_used_vcpu: 0.5, memory_used_bytes: 310 * MIB, disk_used_bytes: 2_000_000_000 });
    expect(Date.parse(withCpu[0].at)).toBeLessThanOrEqual(clock);
    expect(clock - Date.parse(withCpu[0].at)).toBeLessThan(15_000);
    await post(`/v1/boxes/${box.box_id}/terminate`);
  });

  it('validates range (400 naming range), defaults to 1h, and answers 404 for an unknown box', async () => {
    const box = await create('ranged');
    const bad = await svc.api(`/v1/boxes/${box.box_id}/metrics?range=2h`);
    expect(bad.status).toBe(400);
    expect(await errorOf(bad)).toMatchObject({ type: 'invalid_request_error', param: 'range' });
    expect((await (await svc.api(`/v1/boxes/${box.box_id}/metrics`)).json()).range).toBe('1h');
    const missing = await svc.api('/v1/boxes/box_00000000-0000-0000-0000-000000000000/metrics');
    expect(missing.status).toBe(404);
    await post(`/v1/boxes/${box.box_id}/terminate`);
  });
});

describe('box usage draws credits down', () => {
  it('bills a running box per tick at its size; spend reports the same numbers', async () => {
    const box = await create('billed', 'm'); // 2 vCPU, 1 GiB
    await tick(0); // first sight: billed from its last state change, which is after the clock
    const before = await credits();
    await tick(60_000);
    const expected = 60 * 2 * RATES.vcpu_second_usd_nanos + 60 * 1 * RATES.memory_gib_second_usd_nanos;
    expect(before - (await credits())).toBe(expected);

    const res = await svc.api(`/v1/boxes/spend?box_id=${box.box_id}&${windowQuery()}`);
    expect(res.status).toBe(200);
    const spend = await res.json();
    expect(spend.rates).toMatchObject(RATES);
    expect(spend.totals).toEqual({ box_seconds: 60, vcpu_seconds: 120, memory_gib_seconds: 60, usd_nanos: expected });
    expect(spend.boxes).toEqual([
      { box_id: box.box_id, name: 'billed', app_id: appId, box_seconds: 60, vcpu_seconds: 120, memory_gib_seconds: 60, usd_nanos: expected },
    ]);
    expect(spend.series.reduce((n: number, d: { usd_nanos: number }) => n + d.usd_nanos, 0)).toBe(expected);
    expect(spend.series[0].day).toMatch(/^\d{4}-\d{2}-\d{2}$/);

    // A paused box is not billed.
    await post(`/v1/boxes/${box.box_id}/pause`);
    const paused = await credits();
    await tick(60_000);
    expect(await credits()).toBe(paused);
    await post(`/v1/boxes/${box.box_id}/terminate`);
    const after = await (await svc.api(`/v1/boxes/spend?box_id=${box.box_id}&${windowQuery()}`)).json();
    expect(after.totals.usd_nanos).toBe(expected);
    expect(after.boxes[0].name).toBe('billed'); // terminated boxes keep their spend
  });

  it('a gap longer than three intervals is billed only up to three intervals', async () => {
    const box = await create('gappy');
    await tick(0);
    const before = await credits();
    await tick(5 * 3_600_000);
    const billed = 3 * 3600 * (RATES.vcpu_second_usd_nanos + 0.5 * RATES.memory_gib_second_usd_nanos);
    expect(before - (await credits())).toBe(billed);
    await post(`/v1/boxes/${box.box_id}/terminate`);
    clock = Date.now() - 40 * 60_000; // keep later metrics within the last hour
  });

  it('spend filters by app and validates its window', async () => {
    const other = (await (await post('/v1/apps/find', { name: 'other', mint_if_missing: true })).json()).id;
    const none = await (await svc.api(`/v1/boxes/spend?app_id=${other}&from=2020-01-01T00:00:00Z&to=${new Date().toISOString()}`)).json();
    expect(none).toMatchObject({ totals: { box_seconds: 0, usd_nanos: 0 }, boxes: [], series: [] });
    const mine = await (await svc.api(`/v1/boxes/spend?app_id=${appId}&from=2020-01-01T00:00:00Z&to=${new Date(Date.now() + 86400_000).toISOString()}`)).json();
    expect(mine.boxes.map((b: { name: string }) => b.name).sort()).toEqual(['billed', 'gappy', 'metered']);
    const backwards = await svc.api('/v1/boxes/spend?from=2025-02-01T00:00:00Z&to=2025-01-01T00:00:00Z');
    expect(await errorOf(backwards)).toMatchObject({ param: 'from' });
    expect(await errorOf(await svc.api('/v1/boxes/spend?to=yesterday'))).toMatchObject({ param: 'to' });
    expect(await errorOf(await svc.api('/v1/boxes/spend?box_id=nope'))).toMatchObject({ param: 'box_id' });
  });

  it('/v1/boxes/spend is its own route, not a box id (defaults to the last 30 days)', async () => {
    const res = await svc.api('/v1/boxes/spend');
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(Date.parse(body.end_at) - Date.parse(body.start_at)).toBe(30 * 86400_000);
    expect(body.totals.usd_nanos).toBeGreaterThan(0);
  });

  it('at zero credits every call answers 402 credits_exhausted with billing_url, while the box keeps being billed', async () => {
    const box = await create('drain');
    await tick(0);
    const perMinute = 60 * (RATES.vcpu_second_usd_nanos + 0.5 * RATES.memory_gib_second_usd_nanos);
    expect((await setCredits(perMinute - 1)).status).toBe(200);
    await tick(60_000);
    expect(await credits()).toBe(0);
    for (const path of ['/v1/boxes', `/v1/boxes/${box.box_id}/metrics`, '/v1/boxes/spend']) {
      const res = await svc.api(path);
      expect(res.status).toBe(402);
      const err = await errorOf(res);
      expect(err).toMatchObject({ type: 'billing_error', code: 'credits_exhausted' });
      expect((err as unknown as { billing_url: string }).billing_url).toMatch(/^https?:\/\//);
    }
    expect((await setCredits(1_000_000_000)).status).toBe(200);
    expect((await svc.api('/v1/boxes')).status).toBe(200);
    await post(`/v1/boxes/${box.box_id}/terminate`);
  });
});

describe('token usage', () => {
  it('recordTokens charges per token and GET /v1/usage/tokens reports per model per day', async () => {
    const usage = svc.ctx.services.usage;
    const before = await credits();
    const a = usage.recordTokens(orgId, { model: 'local/tiny', inputTokens: 100, outputTokens: 50 });
    usage.recordTokens(orgId, { model: 'local/tiny', inputTokens: 10, outputTokens: 5 });
    usage.recordTokens(orgId, { model: 'openai/gpt-x', inputTokens: 1000, outputTokens: 0 });
    expect(a).toBe(100 * 10 + 50 * 30);
    const total = 1000 + 1500 + 100 + 150 + 10_000;
    expect(before - (await credits())).toBe(total);
    const res = await svc.api('/v1/usage/tokens');
    expect(res.status).toBe(200);
    const body = await res.json();
    const today = new Date().toISOString().slice(0, 10);
    expect(body.data).toEqual([
      { day: today, model: 'local/tiny', requests: 2, input_tokens: 110, output_tokens: 55, usd_nanos: 2750 },
      { day: today, model: 'openai/gpt-x', requests: 1, input_tokens: 1000, output_tokens: 0, usd_nanos: 10_000 },
    ]);
    expect(body.totals).toEqual({ requests: 3, input_tokens: 1110, output_tokens: 55, usd_nanos: total });
    const past = await (await svc.api('/v1/usage/tokens?from=2020-01-01T00:00:00Z&to=2020-02-01T00:00:00Z')).json();
    expect(past.data).toEqual([]);
  });
});

describe('OpenAPI', () => {
  it('documents the usage routes with their query parameters', async () => {
    const doc = await (await fetch(`${svc.url}/v1/openapi.json`)).json();
    const paths = Object.keys(doc.paths);
    expect(paths).toEqual(expect.arrayContaining(['/v1/boxes/spend', '/v1/boxes/{box_id}/metrics', '/v1/usage/tokens']));
    expect(JSON.stringify(doc.paths['/v1/boxes/{box_id}/metrics'])).toContain('7d');
  });
});

describe('billing arithmetic', () => {
  it('a span over hour boundaries is charged its whole cost rounded once', async () => {
    // 1050 nanos a second (1 vCPU, 512 MiB): here the first and last partial hours (1.99 s and
    // 3598.01 s) each cost a whole number and a half, so rounding each hour's share alone
    // charged 1 nano too many. That was the flake of "a gap longer than three intervals":
    // it failed whenever the controlled clock's milliseconds fell on 10 mod 20.
    const box = await create('rounded');
    const record = { box_id: box.box_id, org_id: orgId, app_id: appId, vcpu_count: 1, memory_mib: 512 };
    const hour = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 10 * 3_600_000;
    const charged = await svc.ctx.services.usage.recordBoxTime(record, hour - 1990, hour + 3 * 3_600_000 - 1990);
    expect(charged).toBe(3 * 3600 * 1050);
    await post(`/v1/boxes/${box.box_id}/terminate`);
  });
});
