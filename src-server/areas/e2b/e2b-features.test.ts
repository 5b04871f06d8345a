/**
 * E2B's features Box has under its own names (issue 33), with the stock `e2b` SDK on the
 * fake runtime: network rules become the sandbox's Box HTTP policy, metrics come from Box's
 * meters, autoResume resumes on traffic; and the pure mappings. The real-VM test is
 * e2b-features.vm.test.ts.
 */
import fs from 'node:fs';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BuildError, Sandbox, Template } from 'e2b';
import { FakeRuntime } from '../../test-support/fake-runtime.js';
import { startTestService, type TestService } from '../../test-support/harness.js';
import { e2bMetric, metricsWindow } from './metrics.js';
import { hostKey, policyOf } from './network-rules.js';
import { boxfileOf } from './template-boxfile.js';

let svc: TestService;
const servers: http.Server[] = [];
let opts: { apiKey: string; apiUrl: string; sandboxUrl: string };

beforeAll(async () => {
  svc = await startTestService({ dataDir: fs.mkdtempSync('/tmp/bxe2bf-'), runtime: (d) => new FakeRuntime(d) });
  opts = { apiKey: svc.key, apiUrl: `${svc.url}/e2b/api`, sandboxUrl: `${svc.url}/e2b/sandbox` };
});
afterAll(async () => {
  for (const s of servers) s.close();
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
      '8.8.8.8': { tls: 'passthrough', rules: [{ respond: { status: 403, body: "Refused by the sandbox's network rules: 8.8.8.8 is in denyOut.\n" } }] },
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

describe("E2B allowPublicTraffic on Box's ingress (getHost addresses)", () => {
  /** A request to the ingress at a getHost address (Node does not resolve *.localhost: loopback, with the Host header). */
  const get = (host: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const [, port] = host.split(':');
      http
        .get({ host: '127.0.0.1', port: Number(port), path: '/p', headers: { host, ...headers } }, (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode!, text }));
        })
        .on('error', reject);
    });
  /** The box's port, served on the host port the (fake) box forwards it to: echoes the token header it got. */
  const serve = async (boxId: string, guestPort: number) => {
    const hostPort = (await svc.ctx.services.listeners.forwardsFor(boxId)).find((f) => f.guestPort === guestPort)!.hostPort;
    const s = http.createServer((req, res) => res.end(`in the box: token header=${req.headers['e2b-traffic-access-token'] ?? 'none'}`));
    await new Promise<void>((r) => s.listen(hostPort, '127.0.0.1', () => r()));
    servers.push(s);
  };
  const published = async (boxId: string) => (await svc.ctx.services.listeners.forwardsFor(boxId)).map((f) => f.guestPort);

  it('false: getHost answers 403 without the traffic access token (nothing published), and serves with it', async () => {
    const sbx = await Sandbox.create({ ...opts, network: { allowPublicTraffic: false } });
    expect(sbx.trafficAccessToken).toBeTruthy();
    const host = sbx.getHost(7070);
    expect(host).toBe(`7070-${sbx.sandboxId}.box.localhost:${svc.ctx.services.ingress.port}`);
    const refused = await get(host);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('e2b-traffic-access-token');
    expect(await published(sbx.sandboxId)).not.toContain(7070);
    const token = sbx.trafficAccessToken!;
    const wrong = `${token.slice(0, -1)}${token.endsWith('x') ? 'y' : 'x'}`; // one character changed (a token ending in x made it the right one)
    expect((await get(host, { 'e2b-traffic-access-token': wrong })).status).toBe(403);
    // the token: the port is published on this first use (nothing listens yet: 502), then served
    expect((await get(host, { 'e2b-traffic-access-token': sbx.trafficAccessToken! })).status).toBe(502);
    await serve(sbx.sandboxId, 7070);
    expect(await get(host, { 'e2b-traffic-access-token': sbx.trafficAccessToken! })).toEqual({ status: 200, text: 'in the box: token header=none' });
    // published now, still not public
    expect((await get(host)).status).toBe(403);
    // a connect (another client of the same sandbox) gets the same token
    const again = await Sandbox.connect(sbx.sandboxId, opts);
    expect((await get(again.getHost(7070), { 'e2b-traffic-access-token': again.trafficAccessToken! })).status).toBe(200);
    await sbx.kill();
  });

  it('true (the default): getHost answers anyone', async () => {
    const sbx = await Sandbox.create({ ...opts });
    const host = sbx.getHost(7071);
    expect((await get(host)).status).toBe(502);
    await serve(sbx.sandboxId, 7071);
    expect(await get(host)).toEqual({ status: 200, text: 'in the box: token header=none' });
    const explicit = await Sandbox.create({ ...opts, network: { allowPublicTraffic: true } });
    expect((await get(explicit.getHost(7072))).status).toBe(502);
    await Promise.all([sbx.kill(), explicit.kill()]);
  });

  it('maskRequestHost: the box server gets that Host header, ${PORT} its port (HTTP and a WebSocket upgrade)', async () => {
    const sbx = await Sandbox.create({ ...opts, network: { maskRequestHost: 'custom-host.example.com:${PORT}' } });
    const host = sbx.getHost(7075);
    expect((await get(host)).status).toBe(502); // published on first use
    const hostPort = (await svc.ctx.services.listeners.forwardsFor(sbx.sandboxId)).find((f) => f.guestPort === 7075)!.hostPort;
    const seen: string[] = [];
    const s = http.createServer((req, res) => (seen.push(req.headers.host!), res.end('ok')));
    s.on(
      'upgrade',
      (req, socket) => (seen.push(req.headers.host!), socket.end('HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\nConnection: Upgrade\r\n\r\n')),
    );
    await new Promise<void>((r) => s.listen(hostPort, '127.0.0.1', () => r()));
    servers.push(s);
    expect(await get(host)).toEqual({ status: 200, text: 'ok' });
    await new Promise<void>((resolve, reject) =>
      http
        .get({ host: '127.0.0.1', port: Number(host.split(':')[1]), path: '/ws', headers: { host, connection: 'Upgrade', upgrade: 'x' } })
        .on('upgrade', (_res, socket) => (socket.destroy(), resolve()))
        .on('error', reject),
    );
    expect(seen).toEqual(['custom-host.example.com:7075', 'custom-host.example.com:7075']);
    // another sandbox keeps the request's Host
    const plain = await Sandbox.create(opts);
    await get(plain.getHost(7076));
    const plainPort = (await svc.ctx.services.listeners.forwardsFor(plain.sandboxId)).find((f) => f.guestPort === 7076)!.hostPort;
    const s2 = http.createServer((req, res) => (seen.push(req.headers.host!), res.end('ok')));
    await new Promise<void>((r) => s2.listen(plainPort, '127.0.0.1', () => r()));
    servers.push(s2);
    expect((await get(plain.getHost(7076))).status).toBe(200);
    expect(seen.at(-1)).toBe(plain.getHost(7076));
    await Promise.all([sbx.kill(), plain.kill()]);
  });

  it('traffic to a getHost address resumes a paused autoResume sandbox (requests together share one resume); without autoResume it answers 503', async () => {
    const sbx = await Sandbox.create({ ...opts, lifecycle: { onTimeout: 'pause', autoResume: true } });
    const host = sbx.getHost(7073);
    expect((await get(host)).status).toBe(502); // published on first use; nothing listens yet
    await serve(sbx.sandboxId, 7073);
    await sbx.pause();
    expect((await sbx.getInfo()).state).toBe('paused');
    const answers = await Promise.all([get(host), get(host), get(host)]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect((await sbx.getInfo()).state).toBe('running');

    const plain = await Sandbox.create({ ...opts, lifecycle: { onTimeout: 'pause' } });
    const plainHost = plain.getHost(7074);
    await get(plainHost);
    await serve(plain.sandboxId, 7074);
    await plain.pause();
    const refused = await get(plainHost);
    expect(refused.status).toBe(503);
    expect(refused.text).toMatch(/not running/);
    expect((await plain.getInfo()).state).toBe('paused');
    await Promise.all([sbx.kill(), plain.kill()]);
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

describe('E2B template builds on Box images', () => {
  it('turns template steps into a Boxfile', () => {
    const ctx = fs.mkdtempSync('/tmp/bxe2bctx-');
    fs.mkdirSync(`${ctx}/files-0/folder/sub`, { recursive: true });
    fs.writeFileSync(`${ctx}/files-0/folder/a.txt`, 'a');
    fs.writeFileSync(`${ctx}/files-0/folder/sub/b.txt`, 'b');
    const boxfile = boxfileOf(
      'debian',
      {
        steps: [
          { type: 'COPY', args: ['folder/*', 'folder', '', ''], filesHash: 'h' },
          { type: 'RUN', args: ['cat folder/a.txt'] },
          { type: 'RUN', args: ['whoami', 'user'] },
          { type: 'ENV', args: ['A', 'one "1"', 'B', 'two'] },
          { type: 'WORKDIR', args: ['/app'] },
          { type: 'COPY', args: ['folder/a.txt', '/opt/a.txt', 'user', '0644'], filesHash: 'h' },
        ],
        startCmd: 'echo hi',
      },
      ctx,
      () => 'files-0',
    );
    expect(boxfile.split('\n')).toEqual([
      'FROM debian',
      'COPY ["files-0/folder/a.txt","files-0/folder/sub","folder/"]',
      'RUN ["bash", "-c", "cat folder/a.txt"]',
      'USER user',
      'RUN ["bash", "-c", "whoami"]',
      'USER root',
      'ENV A="one \\"1\\"" B="two"',
      'WORKDIR /app',
      'COPY ["--chmod=644","files-0/folder/a.txt","/opt/a.txt"]',
      'RUN ["chown", "-R", "user", "/opt/a.txt"]',
      'CMD ["bash", "-c", "echo hi"]',
      '',
    ]);
    expect(() => boxfileOf('debian', { steps: [{ type: 'COPY', args: ['nope/*', 'x'], filesHash: 'h' }] }, ctx, () => 'files-0')).toThrow(
      /no uploaded files match "nope\/\*"/,
    );
    expect(() => boxfileOf('debian', { steps: [{ type: 'HEALTHCHECK', args: [] }] }, ctx, () => 'files-0')).toThrow(/HEALTHCHECK is not one/);
    fs.rmSync(ctx, { recursive: true });
  });

  it('builds through the SDK: uploads copies once, reports a base it cannot pull as the build error', async () => {
    const ctx = fs.mkdtempSync('/tmp/bxe2bctx-');
    fs.writeFileSync(`${ctx}/hello.txt`, 'hello');
    const logs: string[] = [];
    const t = Template({ fileContextPath: ctx }).fromImage('ubuntu:22.04').copy('hello.txt', '/hello.txt').runCmd('cat /hello.txt');
    const err = await Template.build(t, 'feature-test', { ...opts, onBuildLogs: (l) => void logs.push(l.message) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BuildError);
    expect((err as Error).message).toMatch(/fromImage 'ubuntu:22.04': Box builds from its own images/);
    expect(logs).toContain("Uploaded 'hello.txt'");
    // the same files again: present, not re-sent
    const again: string[] = [];
    await Template.build(t, 'feature-test', { ...opts, onBuildLogs: (l) => void again.push(l.message) }).catch(() => {});
    expect(again).toContain("Skipping upload of 'hello.txt', already cached");
    expect(await Template.exists('base', opts)).toBe(true);
    expect(await Template.exists('no-such-template', opts)).toBe(false);
    // the upload URL wants its signature
    const put = await fetch(`${svc.url}/e2b/template-files/${'0'.repeat(64)}?signature=forged`, { method: 'PUT', body: 'x' });
    expect(put.status).toBe(401);
    fs.rmSync(ctx, { recursive: true });
  });
});
