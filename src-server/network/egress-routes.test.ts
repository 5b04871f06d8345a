/**
 * The egress API without a VM (fake runtime): GET /v1/egress/ca and rotation, the guest
 * setup that puts the CA into every box, and the egress log (filters, server-sent stream),
 * fed by real requests through the box's proxy port; plus `box egress` in the CLI.
 */
import http from 'node:http';
import type net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src-cli/test-support/cli.js';
import { FakeRuntime } from '../test-support/fake-runtime.js';
import { startTestService, type TestService } from '../test-support/harness.js';
import { GUEST_BUNDLE_PATH, GUEST_CA_PATH } from './tls/guest-trust.js';

let svc: TestService;
let boxId: string;
let proxyPort: number;
let host: http.Server;
let hostPort: number;

beforeAll(async () => {
  svc = await startTestService({ runtime: (d) => new FakeRuntime(d) });
  host = http.createServer((req, res) => res.end(`host saw ${req.url}`));
  hostPort = await new Promise<number>((r) => host.listen(0, '127.0.0.1', () => r((host.address() as net.AddressInfo).port)));
  const appId = (await (await svc.api('/v1/apps/find', { method: 'POST', json: { name: 'eg', mint_if_missing: true } })).json()).id;
  const policy = await (
    await svc.api('/v1/http-policies', {
      method: 'POST',
      json: { name: 'host v1', document: { 'host.box.internal': { rules: [{ match: { path: { prefix: '/v1/' } } }] } } },
    })
  ).json();
  const box = await (await svc.api('/v1/boxes', { method: 'POST', json: { app_id: appId, name: 'egbox', http_policy_id: policy.id } })).json();
  boxId = box.box_id;
  proxyPort = (await svc.ctx.services.egress!.proxyPortFor(boxId))!;
});
afterAll(async () => {
  host.close();
  await svc.close();
});

/** A plain-HTTP request through the box's egress proxy, as a process in the box sends it. */
function viaProxy(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port: proxyPort, path: url, headers: { host: new URL(url).host } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      })
      .on('error', reject);
  });
}

describe('egress CA API', () => {
  it('serves the CA, puts it into every box (files and variables), and rotates it', async () => {
    const ca = await (await svc.api('/v1/egress/ca')).json();
    expect(ca.certificate).toMatch(/^-----BEGIN CERTIFICATE-----\n[\s\S]+-----END CERTIFICATE-----\n$/);
    const boxes = svc.ctx.services.boxes!;
    const rec = (await boxes.get(boxId))!;
    const files = boxes.guestSetup.files(rec);
    expect(files.find((f) => f.path === GUEST_CA_PATH)!.content).toBe(ca.certificate);
    const bundle = String(files.find((f) => f.path === GUEST_BUNDLE_PATH)!.content);
    expect(bundle.endsWith(ca.certificate)).toBe(true);
    expect(bundle.split('BEGIN CERTIFICATE').length).toBeGreaterThan(100);
    expect(boxes.guestSetup.env(rec)).toMatchObject({
      SSL_CERT_FILE: GUEST_BUNDLE_PATH,
      REQUESTS_CA_BUNDLE: GUEST_BUNDLE_PATH,
      CURL_CA_BUNDLE: GUEST_BUNDLE_PATH,
      NODE_EXTRA_CA_CERTS: GUEST_CA_PATH,
    });

    const rotated = await (await svc.api('/v1/egress/ca/rotate', { method: 'POST', json: {} })).json();
    expect(rotated.fingerprint_sha256).not.toBe(ca.fingerprint_sha256);
    expect((await (await svc.api('/v1/egress/ca')).json()).certificate).toBe(rotated.certificate);
    // Running boxes were rewritten before the answer; the old CA stays trusted for the grace period.
    expect(rotated).toMatchObject({ boxes_updated: 1, boxes_failed: [] });
    expect(boxes.guestSetup.files(rec).find((f) => f.path === GUEST_CA_PATH)!.content).toBe(rotated.certificate + ca.certificate);
    const both = String(boxes.guestSetup.files(rec).find((f) => f.path === GUEST_BUNDLE_PATH)!.content);
    expect(both).toContain(rotated.certificate);
    expect(both).toContain(ca.certificate);
  });
});

describe('egress log API', () => {
  it('filters by verdict and host, and streams new entries as server-sent events', async () => {
    expect(await viaProxy(`http://host.box.internal:${hostPort}/v1/models`)).toBe(200);
    expect(await viaProxy('http://example.com/')).toBe(403);
    const denied = await (await svc.api(`/v1/boxes/${boxId}/egress-log?verdict=deny`)).json();
    expect(denied.data.map((e: { host: string; verdict: string }) => `${e.host} ${e.verdict}`)).toEqual(['example.com deny']);
    const byHost = await (await svc.api(`/v1/boxes/${boxId}/egress-log?host=host.box.internal`)).json();
    expect(byHost.data).toMatchObject([{ method: 'GET', path: '/v1/models', verdict: 'allow', status: 200, scheme: 'http' }]);
    expect(byHost.data[0].duration_ms).toBeGreaterThanOrEqual(0);
    expect((await svc.api(`/v1/boxes/${boxId}/egress-log?verdict=maybe`)).status).toBe(400);

    const ac = new AbortController();
    const res = await svc.api(`/v1/boxes/${boxId}/egress-log?stream=1&verdict=allow&limit=5`, { signal: ac.signal });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = res.body!.getReader();
    let text = '';
    const until = async (re: RegExp) => {
      while (!re.test(text)) text += new TextDecoder().decode((await reader.read()).value);
    };
    await until(/\/v1\/models/);
    expect(await viaProxy(`http://host.box.internal:${hostPort}/v1/live-one`)).toBe(200);
    expect(await viaProxy('http://denied.example/')).toBe(403);
    await until(/live-one/);
    ac.abort();
    const events = text
      .split('\n\n')
      .filter((b) => b.includes('event: entry'))
      .map((b) => JSON.parse(b.split('\ndata: ')[1]!));
    expect(events.map((e) => e.path)).toEqual(['/v1/models', '/v1/live-one']);
  });

  it('box egress log and tail in the CLI', async () => {
    const env = { BOX_URL: svc.url, BOX_API_KEY: svc.key };
    const log = await runCli(env, ['egress', 'log', 'egbox', '--verdict', 'deny']);
    expect(log.code).toBe(0);
    expect(log.stdout).toMatch(/deny\s+403 GET\s+http:\/\/denied\.example\//);
    const tail = runCli(env, ['egress', 'tail', 'egbox', '--host', 'host.box.internal', '--seconds', '9'], { timeoutMs: 25_000 });
    await new Promise((r) => setTimeout(r, 6000));
    await viaProxy(`http://host.box.internal:${hostPort}/v1/while-tailing`);
    const done = await tail;
    expect(done.code, done.stderr).toBe(0);
    const out = done.stdout;
    expect(out).toMatch(/allow\s+200 GET\s+http:\/\/host\.box\.internal:\d+\/v1\/models rule 0/);
    expect(out).toContain('/v1/while-tailing');
    expect(out).not.toContain('denied.example');
  }, 40_000);
});

describe('in-box inference through the proxy', () => {
  it("puts the gateway's URL and a box-bound key into the box; the proxy refuses the gateway without that key", async () => {
    const env = svc.ctx.services.boxes!.guestSetup.env((await svc.ctx.services.boxes!.get(boxId))!);
    const port = new URL(svc.url).port;
    expect(env.OPENAI_BASE_URL).toBe(`http://host.box.internal:${port}/v1`);
    expect(env.ANTHROPIC_BASE_URL).toBe(`http://host.box.internal:${port}`);
    expect(env.OPENAI_API_KEY).toBe(svc.ctx.services.boxCredentials.tokenFor(boxId));
    expect(env.OPENAI_API_KEY).not.toBe(svc.key);
    const call = (headers: Record<string, string>) =>
      new Promise<{ status: number; egress: unknown }>((resolve, reject) => {
        http
          .get(
            {
              host: '127.0.0.1',
              port: proxyPort,
              path: `http://host.box.internal:${port}/v1/models`,
              headers: { host: `host.box.internal:${port}`, ...headers },
            },
            (res) => {
              res.resume();
              res.on('end', () => resolve({ status: res.statusCode!, egress: res.headers['x-box-egress'] }));
            },
          )
          .on('error', reject);
      });
    expect(await call({})).toEqual({ status: 401, egress: 'gateway-unauthorized' });
    expect(await call({ authorization: `Bearer ${svc.key}` })).toEqual({ status: 401, egress: 'gateway-unauthorized' });
    expect(await call({ authorization: `Bearer ${svc.ctx.services.boxCredentials.tokenFor('box_someone_else')}` })).toMatchObject({ status: 401 });
    const ok = await call({ authorization: `Bearer ${env.OPENAI_API_KEY}`, 'x-box-gateway-auth': 'forged' });
    expect(ok.egress).toBeUndefined();

    // The "gateway only" preset matches the port too: the gateway's passes, another service on the host's loopback does not.
    const preset = await (await svc.api('/v1/http-policies', { method: 'POST', json: { preset: 'local-gateway-only' } })).json();
    expect((await svc.api(`/v1/boxes/${boxId}/http-policy`, { method: 'PUT', json: { policy_id: preset.id } })).status).toBe(200);
    expect(await call({ authorization: `Bearer ${env.OPENAI_API_KEY}` })).toEqual({ status: 200, egress: undefined });
    expect(await viaProxy(`http://host.box.internal:${hostPort}/v1/models`)).toBe(403);
  });
});
