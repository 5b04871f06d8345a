/**
 * One real microVM (QEMU, user-mode net with restrict=on) through the HTTP API: the egress
 * proxy is the box's only way out and enforces its policy; published ports reach a server
 * in the box through the ingress (http) and their own loopback port (tcp), live and after
 * a sleep/wake that re-applies the forwards at VM start.
 */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../test-support/harness.js';

const VM_TIMEOUT = 240_000;
let svc: TestService;
let host: http.Server;
let hostPort: number;
let boxId: string;
let ingressPort: number;

const post = async (p: string, json: unknown = {}) => {
  const res = await svc.api(p, { method: 'POST', json });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`${p}: ${res.status} ${JSON.stringify(body)}`);
  return body;
};

async function exec(command: string, extra: Record<string, unknown> = {}) {
  const res = await svc.api(`/v1/boxes/${boxId}/exec`, { method: 'POST', json: { command, ...extra } });
  if (res.status !== 200) throw new Error(`exec: ${res.status} ${await res.text()}`);
  const events = (await res.text())
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string; data?: string; return_code?: number });
  const text = (t: string) => Buffer.concat(events.filter((e) => e.type === t).map((e) => Buffer.from(e.data!, 'base64'))).toString();
  return { stdout: text('stdout'), stderr: text('stderr'), code: events.find((e) => e.type === 'exit')?.return_code };
}

/** GET through the ingress with a Host header (Node does not resolve *.localhost itself). */
function viaIngress(hostName: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port: ingressPort, path: '/', headers: { host: `${hostName}:${ingressPort}` } }, (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
      })
      .on('error', reject);
  });
}

function rawTcp(port: number, payload: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => s.write(payload));
    let text = '';
    s.on('data', (c) => (text += c));
    s.on('error', reject);
    s.on('close', () => resolve(text));
  });
}

async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn().catch((e) => e as T);
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 500));
  }
}

beforeAll(async () => {
  host = http.createServer((req, res) => res.end(`hello from the host ${req.url}`));
  await new Promise<void>((r) => host.listen(0, '127.0.0.1', () => r()));
  hostPort = (host.address() as net.AddressInfo).port;
  svc = await startTestService({ dataDir: fs.mkdtempSync('/tmp/bxnet-') });
  ingressPort = svc.ctx.services.ingress.port;
  const appId = (await post('/v1/apps/find', { name: 'net', mint_if_missing: true })).id;
  const policy = await post('/v1/http-policies', { name: 'host-only', document: { 'host.box.internal': { rules: [] } } });
  const box = await post('/v1/boxes', { app_id: appId, name: 'netbox', http_policy_id: policy.id });
  expect(box.status).toBe('running');
  boxId = box.box_id;
}, VM_TIMEOUT);

afterAll(async () => {
  if (boxId) await svc.api(`/v1/boxes/${boxId}/terminate`, { method: 'POST' });
  await svc?.close();
  host?.close();
}, VM_TIMEOUT);

describe('a real box on the network', () => {
  it(
    'reaches the host loopback as host.box.internal; the proxy refuses what the policy does not list',
    async () => {
      const ok = await exec(`curl -sS -w '\\n%{http_code}' http://host.box.internal:${hostPort}/from-box`);
      expect(ok.stdout).toBe('hello from the host /from-box\n200');
      const denied = await exec(`curl -sS -w '\\n%{http_code}' http://example.com/`);
      expect(denied.stdout).toMatch(/host-only[\s\S]*\n403$/);
      const tls = await exec('curl -sS https://example.com/');
      expect(tls.code).not.toBe(0);
      expect(tls.stderr).toContain('403');
      // Without the proxy there is no way out at all.
      const direct = await exec(`curl -sS --noproxy '*' --max-time 5 http://10.0.2.2:${hostPort}/`);
      expect(direct.code).not.toBe(0);

      const log = await (await svc.api(`/v1/boxes/${boxId}/egress-log`)).json();
      expect(log.data.map((e: { method: string; host: string; verdict: string; status: number }) => `${e.method} ${e.host} ${e.verdict} ${e.status}`)).toEqual([
        'CONNECT example.com deny 403',
        'GET example.com deny 403',
        'GET host.box.internal allow 200',
      ]);
    },
    VM_TIMEOUT,
  );

  it(
    'publishes an http port through the ingress and a tcp port on its own loopback port (live)',
    async () => {
      await exec('mkdir -p /srv/www && echo box-page > /srv/www/index.html');
      // setsid: a daemon outside the exec's process group, which the agent kills when its session ends (sleep/wake).
      for (const port of [8080, 8081]) await exec(`setsid -f python3 -m http.server ${port} --bind 0.0.0.0 --directory /srv/www >/dev/null 2>&1 </dev/null`);
      const web = await post(`/v1/boxes/${boxId}/listeners`, { guest_port: 8080, protocol: 'http' });
      expect(web).toMatchObject({ route_status: 'active', alias_url: `http://netbox.box.localhost:${ingressPort}/` });
      // The public URL needs no DNS: Node's own fetch reaches it.
      const direct = await until(
        () => fetch(web.public_url).then(async (r) => ({ status: r.status, text: await r.text() })),
        (r) => r.status === 200,
      );
      expect(direct).toEqual({ status: 200, text: 'box-page\n' });
      const tcp = await post(`/v1/boxes/${boxId}/listeners`, { guest_port: 8081, protocol: 'tcp' });

      const page = await until(
        () => viaIngress('netbox.box.localhost'),
        (r) => r.status === 200,
      );
      expect(page).toEqual({ status: 200, text: 'box-page\n' });
      const raw = await until(
        () => rawTcp(tcp.public_port, 'GET /index.html HTTP/1.0\r\n\r\n'),
        (t) => t.includes('box-page'),
      );
      expect(raw).toMatch(/^HTTP\/1\.0 200/);
      expect(raw).toContain('box-page');
    },
    VM_TIMEOUT,
  );

  it(
    'ingress traffic wakes the sleeping box, whose forwards come back with the VM',
    async () => {
      await post(`/v1/boxes/${boxId}/sleep`);
      expect((await (await svc.api(`/v1/boxes/${boxId}`)).json()).status).toBe('sleeping');
      const page = await viaIngress('netbox.box.localhost');
      expect(page).toEqual({ status: 200, text: 'box-page\n' });
      expect((await (await svc.api(`/v1/boxes/${boxId}`)).json()).status).toBe('running');
      const tcp = (await (await svc.api(`/v1/boxes/${boxId}/listeners`)).json()).data.find((l: { protocol: string }) => l.protocol === 'tcp');
      expect(await rawTcp(tcp.public_port, 'GET / HTTP/1.0\r\n\r\n')).toContain('box-page');
      // The egress proxy port is the same after the restore.
      expect((await exec(`curl -sS http://host.box.internal:${hostPort}/again`)).stdout).toBe('hello from the host /again');
    },
    VM_TIMEOUT,
  );
});
