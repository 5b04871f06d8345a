/**
 * E2B's features Box has under its own names (issue 33), with the stock `e2b` SDK on the
 * fake runtime: network rules become the sandbox's Box HTTP policy, metrics come from Box's
 * meters, autoResume resumes on traffic; and the pure mappings. The real-VM test is
 * e2b-features.vm.test.ts.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sandbox } from 'e2b';
import { FakeRuntime } from '../test-support/fake-runtime.js';
import { startTestService, type TestService } from '../test-support/harness.js';
import { e2bMetric, metricsWindow } from './metrics.js';
import { hostKey, policyOf } from './network-rules.js';

let svc: TestService;
let opts: { apiKey: string; apiUrl: string; sandboxUrl: string };

beforeAll(async () => {
  svc = await startTestService({ dataDir: fs.mkdtempSync('/tmp/bxe2bf-'), runtime: (d) => new FakeRuntime(d) });
  opts = { apiKey: svc.key, apiUrl: `${svc.url}/e2b/api`, sandboxUrl: `${svc.url}/e2b/sandbox` };
});
afterAll(async () => {
  await svc?.close();
});

const policyOfBox = async (id: string) => {
  const res = await svc.api(`/v1/boxes/${id}/http-policy`);
  return res.status === 404 ? null : ((await res.json()) as { id: string; document: Record<string, unknown> });
};

describe('E2B network rules as a Box HTTP policy', () => {
  it('maps allowOut, denyOut, allowInternetAccess and transforms to a policy document', () => {
    expect(policyOf({})).toBeNull();
    expect(policyOf({ allowInternetAccess: true })).toBeNull();
    expect(policyOf({ allowInternetAccess: false })).toEqual({});
    expect(policyOf({ denyOut: ['0.0.0.0/0'], allowOut: ['1.1.1.1', 'api.example.com'] })).toEqual({
      '1.1.1.1': { rules: [] },
      'api.example.com': { rules: [] },
    });
    const deny = policyOf({ denyOut: ['8.8.8.8/32'] })!;
    expect(Object.keys(deny)).toEqual(['*', '8.8.8.8']);
    expect(deny['8.8.8.8']!.rules[0]!.respond!.status).toBe(403);
    // allow wins over deny
    expect(policyOf({ denyOut: ['8.8.8.8'], allowOut: ['8.8.8.8'] })).toEqual({ '*': { rules: [] }, '8.8.8.8': { rules: [] } });
    // a transform sets headers where access is granted, and grants none by itself
    expect(policyOf({ allowInternetAccess: false, rules: { 'api.example.com': [{ transform: { headers: { 'X-Key': 'k' } } }] } })).toEqual({});
    expect(
      policyOf({ allowOut: ['api.example.com'], denyOut: ['0.0.0.0/0'], rules: { 'api.example.com': [{ transform: { headers: { 'X-Key': 'k' } } }] } }),
    ).toEqual({
      'api.example.com': { rules: [{ request: { set: { headers: { 'X-Key': 'k' } } } }] },
    });
    expect(hostKey('*.Example.com', 'p')).toBe('*.example.com');
    expect(() => hostKey('10.0.0.0/8', 'network.allowOut[0]')).toThrow(/network\.allowOut\[0\]: "10\.0\.0\.0\/8" is an address range/);
    expect(() => hostKey('not a host', 'network.denyOut[1]')).toThrow(/network\.denyOut\[1\]/);
  });

  it('attaches the policy at create, replaces it on updateNetwork, deletes it with the sandbox', async () => {
    const sbx = await Sandbox.create({ ...opts, network: { denyOut: ['0.0.0.0/0'], allowOut: ['host.box.internal'] } });
    const p = await policyOfBox(sbx.sandboxId);
    expect(p?.document).toEqual({ 'host.box.internal': { rules: [] } });
    await sbx.updateNetwork({ denyOut: ['8.8.8.8'] });
    expect((await policyOfBox(sbx.sandboxId))?.document).toEqual({
      '*': { rules: [] },
      '8.8.8.8': { rules: [{ respond: { status: 403, body: "Refused by the sandbox's network rules: 8.8.8.8 is in denyOut.\n" } }] },
    });
    await sbx.updateNetwork({});
    expect((await policyOfBox(sbx.sandboxId))?.document).toEqual({ '*': { rules: [] } });
    await sbx.kill();
    expect((await svc.api(`/v1/http-policies/${p!.id}`)).status).toBe(404);

    const open = await Sandbox.create(opts);
    expect(await policyOfBox(open.sandboxId)).toBeNull();
    await open.updateNetwork({ allowInternetAccess: false });
    expect((await policyOfBox(open.sandboxId))?.document).toEqual({});
    const off = await Sandbox.create({ ...opts, allowInternetAccess: false });
    expect((await policyOfBox(off.sandboxId))?.document).toEqual({});
    await Promise.all([open.kill(), off.kill()]);
  });
});

describe('E2B metrics from Box meters', () => {
  it('converts a sample to E2B units and reads a window', () => {
    const m = e2bMetric({ at: 1_700_000_000_500, cpu: 0.5, mem: 300 * 1024 * 1024, disk: 2 ** 30 }, { vcpu_count: 2, memory_mib: 1024, disk_gib: 4 });
    expect(m).toEqual({
      timestamp: '2023-11-14T22:13:20.500Z',
      timestampUnix: 1_700_000_000,
      cpuCount: 2,
      cpuUsedPct: 25,
      memUsed: 300 * 1024 * 1024,
      memTotal: 1024 * 1024 * 1024,
      memCache: 0,
      diskUsed: 2 ** 30,
      diskTotal: 4 * 2 ** 30,
    });
    expect(metricsWindow({}, '2026-01-01T00:00:00Z', 5e12)).toEqual({ from: Date.parse('2026-01-01T00:00:00Z'), to: 5e12 });
    expect(metricsWindow({ start: 10, end: 20 }, '2026-01-01T00:00:00Z')).toEqual({ from: 10_000, to: 20_999 });
    expect(() => metricsWindow({ start: 20, end: 10 }, '2026-01-01T00:00:00Z')).toThrow(/end/);
  });

  it('answers getMetrics and the list-metrics route from the sampler', async () => {
    const sbx = await Sandbox.create(opts);
    const start = new Date(Date.now() - 1000);
    await svc.ctx.services.metricsSampler.tick();
    const metrics = await sbx.getMetrics();
    expect(metrics.length).toBeGreaterThan(0);
    const m = metrics.at(-1)!;
    expect(m.timestamp.getTime()).toBeGreaterThanOrEqual(start.getTime());
    expect(m.cpuCount).toBeGreaterThan(0);
    expect(m.memTotal).toBeGreaterThan(0);
    expect(m.diskTotal).toBeGreaterThan(0);
    expect(await sbx.getMetrics({ start: new Date(start.getTime() - 3_600_000), end: new Date(start.getTime() - 1_800_000) })).toEqual([]);
    const res = await fetch(`${opts.apiUrl}/sandboxes/metrics?sandbox_ids=${sbx.sandboxId},nope`, { headers: { 'X-API-Key': svc.key } });
    const body = (await res.json()) as { sandboxes: Record<string, { cpuCount: number }> };
    expect(Object.keys(body.sandboxes)).toEqual([sbx.sandboxId]);
    await sbx.kill();
  });
});

describe('E2B lifecycle on Box pause and resume', () => {
  it('resumes a paused autoResume sandbox on its traffic; refuses autoResume with keepMemory false', async () => {
    const sbx = await Sandbox.create({ ...opts, lifecycle: { onTimeout: 'pause', autoResume: true } });
    expect((await sbx.getInfo()).lifecycle).toEqual({ onTimeout: 'pause', autoResume: true });
    await sbx.pause();
    expect((await sbx.getInfo()).state).toBe('paused');
    expect((await sbx.commands.run('echo back')).stdout).toBe('back\n');
    expect((await sbx.getInfo()).state).toBe('running');
    await sbx.kill();
    const res = await fetch(`${opts.apiUrl}/v2/sandboxes`, {
      method: 'POST',
      headers: { 'X-API-Key': svc.key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ templateID: 'base', autoPause: true, autoPauseMemory: false, autoResume: { enabled: true } }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toMatch(/autoResume cannot be combined with keepMemory: false/);
  });
});
