import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeRuntime } from '../../test-support/fake-runtime.js';
import { errorOf, startTestService, type TestService } from '../../test-support/harness.js';

let svc: TestService;
let rt: FakeRuntime;
let appId: string;
let ingressPort: number;
const servers: net.Server[] = [];

beforeAll(async () => {
  svc = await startTestService({ runtime: (d) => (rt = new FakeRuntime(d)), tuning: { egressLogKeep: 50 } });
  appId = (await (await post('/v1/apps/find', { name: 'net', mint_if_missing: true })).json()).id;
  ingressPort = svc.ctx.services.ingress.port;
});
afterAll(async () => {
  for (const s of servers) s.close();
  await svc.close();
});

function post(p: string, json: unknown = {}, headers: Record<string, string> = {}) {
  return svc.api(p, { method: 'POST', json, headers });
}
async function createBox(name: string, extra: Record<string, unknown> = {}) {
  const res = await post('/v1/boxes', { app_id: appId, name, ...extra });
  expect(res.status).toBe(200);
  return (await res.json()) as { box_id: string; name: string };
}
/** Stands in for a server inside the fake VM: listens on the host port QEMU would forward. */
async function guestServer(boxId: string, guestPort: number, tag: string) {
  const hostPort = (await svc.ctx.services.listeners.forwardsFor(boxId)).find((f) => f.guestPort === guestPort)!.hostPort;
  const s = http.createServer((req, res) => res.end(`${tag} ${req.method} ${req.url} host=${req.headers.host} xfh=${req.headers['x-forwarded-host']}`));
  await new Promise<void>((r) => s.listen(hostPort, '127.0.0.1', () => r()));
  servers.push(s);
  return s;
}
/** A request to the ingress with a given Host header. */
function ingress(host: string, path = '/'): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port: ingressPort, path, headers: { host: `${host}:${ingressPort}` } }, (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
      })
      .on('error', reject);
  });
}

describe('listeners', () => {
  it('publishes http and tcp ports with stable host ports, applied live and kept for restarts', async () => {
    const box = await createBox('web');
    const h = await post(`/v1/boxes/${box.box_id}/listeners`, { guest_port: 8080, protocol: 'http' });
    expect(h.status).toBe(200);
    const hj = await h.json();
    expect(hj).toMatchObject({
      guest_port: 8080,
      protocol: 'http',
      route_status: 'active',
      alias_url: `http://web.box.localhost:${ingressPort}/`,
      public_host: '127.0.0.1',
    });
    expect(hj.public_url).toBe(`http://127.0.0.1:${hj.public_port}/`);
    expect(hj.public_port).not.toBe(ingressPort);
    const t = await (await post(`/v1/boxes/${box.box_id}/listeners`, { guest_port: 22, protocol: 'tcp' })).json();
    expect(t.public_url).toMatch(/^tcp:\/\/127\.0\.0\.1:\d+$/);
    expect(t.public_port).toBe(Number(t.public_url.split(':').pop()));
    const forwards = await svc.ctx.services.listeners.forwardsFor(box.box_id);
    expect(forwards.map((f) => f.guestPort).sort()).toEqual([22, 8080]);
    expect(forwards.find((f) => f.guestPort === 22)!.hostPort).toBe(t.public_port);
    for (const f of forwards) expect(rt.forwards.has(`${box.box_id}:${f.hostPort}->${f.guestPort}`)).toBe(true);
    expect(await svc.ctx.services.boxes.hooks.network.forwardsFor(box.box_id)).toEqual(forwards);

    const second = await (await post(`/v1/boxes/${box.box_id}/listeners`, { guest_port: 9000 })).json();
    expect(second).toMatchObject({ protocol: 'http', alias_url: `http://9000.web.box.localhost:${ingressPort}/` });

    const dup = await post(`/v1/boxes/${box.box_id}/listeners`, { guest_port: 8080, protocol: 'tcp' });
    expect(dup.status).toBe(409);
    expect(await errorOf(dup)).toMatchObject({ code: 'already_exists', param: 'guest_port' });
    expect(await errorOf(await post(`/v1/boxes/${box.box_id}/listeners`, { guest_port: 70000 }))).toMatchObject({ param: 'guest_port' });
    expect(await errorOf(await post(`/v1/boxes/${box.box_id}/listeners`, { guest_port: 80, protocol: 'udp' }))).toMatchObject({ param: 'protocol' });

    const list = await (await svc.api(`/v1/boxes/${box.box_id}/listeners`)).json();
    expect(list.data.map((l: { guest_port: number }) => l.guest_port)).toEqual([8080, 22, 9000]);

    const del = await svc.api(`/v1/boxes/${box.box_id}/listeners/22`, { method: 'DELETE' });
    expect(await del.json()).toMatchObject({ guest_port: 22, protocol: 'tcp' });
    expect([...rt.forwards].some((f) => f.startsWith(`${box.box_id}:${t.public_port}->`))).toBe(false);
    expect((await svc.api(`/v1/boxes/${box.box_id}/listeners/22`, { method: 'DELETE' })).status).toBe(404);
  });

  it('a sleeping box keeps its listeners (inactive) and gets them back at restore', async () => {
    const box = await createBox('sleepy');
    await post(`/v1/boxes/${box.box_id}/listeners`, { guest_port: 3000 });
    await post(`/v1/boxes/${box.box_id}/sleep`);
    const l = (await (await svc.api(`/v1/boxes/${box.box_id}/listeners`)).json()).data[0];
    expect(l.route_status).toBe('inactive');
    // Publishing while asleep persists only; nothing is applied to a VM that is not there.
    const more = await (await post(`/v1/boxes/${box.box_id}/listeners`, { guest_port: 3001, protocol: 'tcp' })).json();
    expect(more.route_status).toBe('inactive');
    expect([...rt.forwards].filter((f) => f.includes(`:${more.public_port}->`))).toEqual([]);
    expect((await svc.ctx.services.listeners.forwardsFor(box.box_id)).map((f) => f.guestPort)).toEqual([3000, 3001]);
  });

  it("publishes a box's create-time ingress_ports as http listeners at its first start", async () => {
    const box = await createBox('ported', { ingress_ports: [8080, 9090] });
    const listed = async () =>
      (await (await svc.api(`/v1/boxes/${box.box_id}/listeners`)).json()).data as { guest_port: number; protocol: string; route_status: string }[];
    for (let i = 0; i < 50 && (await listed()).length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    expect((await listed()).map((l) => [l.guest_port, l.protocol, l.route_status])).toEqual([
      [8080, 'http', 'active'],
      [9090, 'http', 'active'],
    ]);
    expect([...rt.forwards].filter((f) => f.startsWith(`${box.box_id}:`))).toHaveLength(2);
    // The record names each port's address, the same the listeners give (issue 29).
    const aliases = ((await listed()) as unknown as { guest_port: number; alias_url: string }[]).map((l) => ({ guest_port: l.guest_port, url: l.alias_url }));
    const record = (await (await svc.api(`/v1/boxes/${box.box_id}`)).json()) as { ingress_urls: unknown };
    expect(record.ingress_urls).toEqual(aliases);
    expect(aliases[0]!.url).toBe(`http://ported.box.localhost:${svc.ctx.services.ingress.port}/`);
    const listedBox = ((await (await svc.api('/v1/boxes?search=ported')).json()) as { data: { ingress_urls: unknown }[] }).data[0]!;
    expect(listedBox.ingress_urls).toEqual(aliases);
    await svc.api(`/v1/boxes/${box.box_id}/listeners/9090`, { method: 'DELETE' });
    await post(`/v1/boxes/${box.box_id}/reboot`);
    await new Promise((r) => setTimeout(r, 50));
    expect((await listed()).map((l) => l.guest_port)).toEqual([8080]);
  });

  it('only the creator of a private box publishes, even with an override reason', async () => {
    const box = await createBox('secret-box', { visibility: 'private' });
    const other = (await (await post('/v1/api-keys', { name: 'other', scope: 'organization' })).json()).secret as string;
    const as = (extra: Record<string, string> = {}) => ({ authorization: `Bearer ${other}`, ...extra });
    const res = await post(`/v1/boxes/${box.box_id}/listeners`, { guest_port: 80 }, as({ 'X-Box-Override-Reason': 'incident 42' }));
    expect(res.status).toBe(403);
    expect((await errorOf(res)).type).toBe('permission_error');
    expect((await post(`/v1/boxes/${box.box_id}/domains`, { domain: 'x.localhost' }, as({ 'X-Box-Override-Reason': 'incident 42' }))).status).toBe(403);
    expect((await svc.api(`/v1/boxes/${box.box_id}/listeners`, { headers: as() })).status).toBe(200);
    expect((await post(`/v1/boxes/${box.box_id}/listeners`, { guest_port: 80 })).status).toBe(200);
  });
});

describe('ingress', () => {
  it('routes <name>.box.localhost, <port>.<name>.box.localhost and custom domains; unknown hosts get a 404 page', async () => {
    const box = await createBox('site');
    await post(`/v1/boxes/${box.box_id}/listeners`, { guest_port: 8000 });
    await post(`/v1/boxes/${box.box_id}/listeners`, { guest_port: 8001 });
    await guestServer(box.box_id, 8000, 'main');
    await guestServer(box.box_id, 8001, 'admin');

    const main = await ingress('site.box.localhost', '/hello?x=1');
    expect(main).toMatchObject({ status: 200 });
    expect(main.text).toBe(`main GET /hello?x=1 host=site.box.localhost:${ingressPort} xfh=site.box.localhost:${ingressPort}`);
    expect((await ingress('8001.site.box.localhost')).text).toMatch(/^admin GET \//);

    const d = await post(`/v1/boxes/${box.box_id}/domains`, { domain: 'MyApp.localhost', guest_port: 8001 });
    expect(await d.json()).toMatchObject({
      domain: 'myapp.localhost',
      box_id: box.box_id,
      guest_port: 8001,
      public_url: `http://myapp.localhost:${ingressPort}/`,
    });
    expect((await ingress('myapp.localhost')).text).toMatch(/^admin /);
    await post(`/v1/boxes/${box.box_id}/domains`, { domain: 'site.example.test' });
    expect((await ingress('site.example.test')).text).toMatch(/^main /);
    expect((await (await svc.api(`/v1/boxes/${box.box_id}/domains`)).json()).data.map((x: { domain: string }) => x.domain)).toEqual([
      'myapp.localhost',
      'site.example.test',
    ]);

    const other = await createBox('other-site');
    const taken = await post(`/v1/boxes/${other.box_id}/domains`, { domain: 'myapp.localhost' });
    expect(taken.status).toBe(409);
    expect(await errorOf(await post(`/v1/boxes/${box.box_id}/domains`, { domain: 'x.localhost', guest_port: 9999 }))).toMatchObject({ param: 'guest_port' });
    expect(await errorOf(await post(`/v1/boxes/${box.box_id}/domains`, { domain: 'nodots' }))).toMatchObject({ param: 'domain' });

    expect((await svc.api(`/v1/boxes/${box.box_id}/domains/myapp.localhost`, { method: 'DELETE' })).status).toBe(200);
    expect((await ingress('myapp.localhost')).status).toBe(404);
    expect((await svc.api(`/v1/boxes/${box.box_id}/domains`, { method: 'DELETE', json: { domain: 'site.example.test' } })).status).toBe(200);
    expect((await ingress('site.example.test')).status).toBe(404);

    const miss = await ingress('nobody.box.localhost');
    expect(miss.status).toBe(404);
    expect(miss.text).toContain('No box named nobody');
    expect((await ingress('other-site.box.localhost')).status).toBe(404);
  });

  it("answers E2B's getHost(port) addresses, <port>-<sandboxID>.box.localhost, over http and https, publishing the port on first use", async () => {
    const box = await createBox('e2b-host');
    const host = `7070-${box.box_id}.box.localhost`;
    // nothing listens in the box yet: the port is published anyway, and the page says so
    const first = await ingress(host);
    expect(first.status).toBe(502);
    expect(first.text).toContain('guest port 7070');
    expect(await svc.ctx.services.listeners.list((await svc.ctx.services.boxes.get(box.box_id))!)).toMatchObject([{ guest_port: 7070, protocol: 'http' }]);
    await guestServer(box.box_id, 7070, 'e2b');
    expect(await ingress(host, '/x')).toMatchObject({ status: 200, text: `e2b GET /x host=${host}:${ingressPort} xfh=${host}:${ingressPort}` });
    // https on the same port, with a certificate for *.box.localhost from the serving CA
    const ca = fs.readFileSync(path.join(svc.dataDir, 'tls', 'serving-ca.pem'));
    const secure = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      https
        .get({ host: '127.0.0.1', port: ingressPort, path: '/s', servername: host, ca, headers: { host: `${host}:${ingressPort}` } }, (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode!, text }));
        })
        .on('error', reject);
    });
    expect(secure).toMatchObject({ status: 200, text: `e2b GET /s host=${host}:${ingressPort} xfh=${host}:${ingressPort}` });
    // a name, not an id, or an unknown sandbox: no
    expect((await ingress(`7070-e2b-host.box.localhost`)).status).toBe(404);
    const unknown = await ingress(`7070-box_00000000-0000-4000-8000-000000000000.box.localhost`);
    // as E2B's proxy answers for a sandbox that is not there
    expect(unknown.status).toBe(502);
    expect(JSON.parse(unknown.text)).toEqual({ message: 'The sandbox was not found', sandboxId: 'box_00000000-0000-4000-8000-000000000000', code: 502 });
    await post(`/v1/boxes/${box.box_id}/terminate`);
    expect(await ingress(host)).toMatchObject({ status: 502 });
  });

  it('wakes a sleeping box and counts as activity; a paused box answers 503', async () => {
    const box = await createBox('napper');
    await post(`/v1/boxes/${box.box_id}/listeners`, { guest_port: 8080 });
    await guestServer(box.box_id, 8080, 'napper');
    await post(`/v1/boxes/${box.box_id}/sleep`);
    await svc.ctx.db.run('UPDATE boxes SET last_activity_at = ? WHERE id = ?', ['2000-01-01T00:00:00.000Z', box.box_id]);
    const r = await ingress('napper.box.localhost');
    expect(r.status).toBe(200);
    const after = (await svc.ctx.services.boxes.get(box.box_id))!;
    expect(after.status).toBe('running');
    expect(after.last_activity_at! > '2001').toBe(true);
    expect(rt.calls).toContain(`restore:${box.box_id}`);

    await post(`/v1/boxes/${box.box_id}/pause`);
    const paused = await ingress('napper.box.localhost');
    expect(paused.status).toBe(503);
    expect((await svc.ctx.services.boxes.get(box.box_id))!.status).toBe('paused');
  });

  it('answers 502 when nothing listens behind a published port', async () => {
    const box = await createBox('silent');
    await post(`/v1/boxes/${box.box_id}/listeners`, { guest_port: 8080 });
    const r = await ingress('silent.box.localhost');
    expect(r.status).toBe(502);
    expect(r.text).toContain('guest port 8080');
  });
});

describe('egress through the service', () => {
  it("enforces the box's attached policy, injects secrets, and pages the egress log", async () => {
    const upstream = http.createServer((req, res) => res.end(`up ${req.url} auth=${req.headers['x-api-key'] ?? '-'}`));
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
    servers.push(upstream);
    const upPort = (upstream.address() as net.AddressInfo).port;
    expect((await svc.api('/v1/secrets/UP_KEY', { method: 'PUT', json: { value: 'k-123-secret' } })).status).toBe(200);
    const policy = await (
      await post('/v1/http-policies', {
        name: 'loopback-only',
        document: { 'host.box.internal': { rules: [{ request: { set: { headers: { 'x-api-key': '${secrets.UP_KEY}' } } } }] } },
      })
    ).json();
    const box = await createBox('egress-box');
    const proxyPort = (await svc.ctx.services.egress.proxyPortFor(box.box_id))!;
    expect(proxyPort).toBeGreaterThan(0);
    const viaProxy = (url: string) =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port: proxyPort, path: url, headers: { host: new URL(url).host } }, (res) => {
            let text = '';
            res.on('data', (c) => (text += c));
            res.on('end', () => resolve({ status: res.statusCode!, text }));
          })
          .on('error', reject);
      });

    expect((await viaProxy(`http://host.box.internal:${upPort}/a`)).text).toBe('up /a auth=-');
    expect((await svc.api(`/v1/boxes/${box.box_id}/http-policy`, { method: 'PUT', json: { policy_id: policy.id } })).status).toBe(200);
    expect((await viaProxy(`http://host.box.internal:${upPort}/b`)).text).toBe('up /b auth=k-123-secret');
    const denied = await viaProxy('http://example.com/');
    expect(denied.status).toBe(403);
    expect(denied.text).toContain('loopback-only');

    const log = await (await svc.api(`/v1/boxes/${box.box_id}/egress-log?limit=2`)).json();
    expect(log).toMatchObject({ limit: 2, offset: 0, total: 3, has_more: true });
    expect(log.data[0]).toMatchObject({
      method: 'GET',
      host: 'example.com',
      port: 80,
      path: '/',
      verdict: 'deny',
      policy_id: policy.id,
      rule_index: null,
      status: 403,
    });
    expect(log.data[1]).toMatchObject({
      host: 'host.box.internal',
      port: upPort,
      path: '/b',
      verdict: 'allow',
      policy_id: policy.id,
      rule_index: 0,
      status: 200,
    });
    const rest = await (await svc.api(`/v1/boxes/${box.box_id}/egress-log?limit=2&offset=2`)).json();
    expect(rest.data).toHaveLength(1);
    expect(rest.data[0]).toMatchObject({ path: '/a', verdict: 'allow', policy_id: null });
    expect(await errorOf(await svc.api(`/v1/boxes/${box.box_id}/egress-log?limit=500`))).toMatchObject({ param: 'limit' });

    // Terminating the box closes its proxy and forgets its networking.
    await post(`/v1/boxes/${box.box_id}/terminate`);
    await new Promise((r) => setTimeout(r, 50));
    await expect(viaProxy(`http://host.box.internal:${upPort}/c`)).rejects.toThrow();
    expect(await svc.ctx.services.listeners.forwardsFor(box.box_id)).toEqual([]);
  });

  it('a box keeps its proxy port across calls and boxes get distinct ports', async () => {
    const a = await createBox('port-a');
    const b = await createBox('port-b');
    const pa = await svc.ctx.services.egress.proxyPortFor(a.box_id);
    expect(await svc.ctx.services.egress.proxyPortFor(a.box_id)).toBe(pa);
    expect(await svc.ctx.services.egress.proxyPortFor(b.box_id)).not.toBe(pa);
  });
});

describe('across a service restart', () => {
  it('a box keeps its proxy port; a listener whose host port was taken meanwhile moves to a free one', async () => {
    const dataDir = fs.mkdtempSync(`${svc.dataDir}-restart-`);
    const first = await startTestService({ dataDir, runtime: (d) => new FakeRuntime(d) });
    const app = (await (await first.api('/v1/apps/find', { method: 'POST', json: { name: 'r', mint_if_missing: true } })).json()).id;
    const box = await (await first.api('/v1/boxes', { method: 'POST', json: { app_id: app, name: 'keeper' } })).json();
    const proxyPort = (await first.ctx.services.egress.proxyPortFor(box.box_id))!;
    const tcp = await (await first.api(`/v1/boxes/${box.box_id}/listeners`, { method: 'POST', json: { guest_port: 22, protocol: 'tcp' } })).json();
    await first.api(`/v1/boxes/${box.box_id}/sleep`, { method: 'POST' });
    await first.close();

    const squatter = net.createServer();
    await new Promise<void>((r) => squatter.listen(tcp.public_port, '127.0.0.1', () => r()));
    const second = await startTestService({ dataDir, runtime: (d) => new FakeRuntime(d) });
    try {
      expect(await second.ctx.services.egress.proxyPortFor(box.box_id)).toBe(proxyPort);
      const answer = await new Promise<string>((resolve, reject) => {
        const s = net.connect(proxyPort, '127.0.0.1', () => s.write('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
        let text = '';
        s.on('data', (c) => (text += c));
        s.on('end', () => resolve(text));
        s.on('error', reject);
      });
      expect(answer).toContain('box egress proxy');
      const moved = (await (await second.api(`/v1/boxes/${box.box_id}/listeners`)).json()).data[0];
      expect(moved.guest_port).toBe(22);
      expect(moved.public_port).not.toBe(tcp.public_port);
      expect(await second.ctx.services.listeners.forwardsFor(box.box_id)).toEqual([{ hostPort: moved.public_port, guestPort: 22 }]);
    } finally {
      squatter.close();
      await second.close();
    }
  });
});
