import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { selfSignedCert } from '../../test-support/self-signed.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { PolicyDocument } from '../../contract/policies.js';
import { openDatabase, type Db } from '../../db/connection.js';
import { BoxProxy } from './box-proxy.js';
import type { PolicyRef } from './decide.js';
import { EgressRepo } from './egress-log-repo.js';
import type { ProxyDeps } from './proxy-deps.js';
import { defaultResolver } from './upstream.js';

const BOX = 'box_00000000-0000-4000-8000-000000000001';
const SECRET = 'sk-live-5ecret-value-never-in-the-box';

/** A loopback upstream that records what it received. */
let upstream: http.Server;
let upPort: number;
let seen: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
/** A loopback TCP echo server, the far end of CONNECT tunnels. */
let echo: net.Server;
let echoPort: number;

let db: Db;
let repo: EgressRepo;
let policy: PolicyRef | null = null;
let proxy: BoxProxy;
let deps: ProxyDeps;
let proxyPort: number;
const secrets: Record<string, string> = { API_TOKEN: SECRET };

/** A loopback HTTPS upstream with a self-signed certificate for tls.example.test. */
let tlsUp: https.Server;
let tlsPort: number;
let tlsCert: string;

/** Test names under *.example.test reach the loopback servers (tls.* and port 443 of other.* the HTTPS one); everything else resolves as usual. */
const resolve: ProxyDeps['resolve'] = (host, port) => {
  if (!host.endsWith('example.test')) return defaultResolver(host, port);
  const tls = port === 443 && (host === 'tls.example.test' || host === 'other.example.test');
  return { host: '127.0.0.1', port: tls ? tlsPort : port === 443 ? echoPort : upPort, internal: true };
};

const selfSigned = (cn: string) => {
  const { key, cert } = selfSignedCert(cn, 'rsa');
  return { key, cert };
};

beforeAll(async () => {
  upstream = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      res.setHeader('content-type', 'text/plain');
      res.end(`upstream saw ${req.method} ${req.url}`);
    });
  });
  upPort = await listen(upstream);
  echo = net.createServer((s) => s.pipe(s));
  echoPort = await listen(echo);
  const kc = selfSigned('tls.example.test');
  tlsCert = kc.cert;
  tlsUp = https.createServer(kc, (req, res) => res.end(`tls upstream saw ${req.method} ${req.url} key=${req.headers['x-api-key']}`));
  tlsPort = await listen(tlsUp);
  db = await openDatabase(fs.mkdtempSync(path.join(os.tmpdir(), 'egress-test-')));
  repo = new EgressRepo(db, 20);
  deps = { policyFor: async () => policy, secretFor: async (_b, n) => secrets[n], log: repo, resolve, tlsCa: tlsCert };
  proxy = new BoxProxy(deps);
  proxy.boxId = BOX;
  proxyPort = await proxy.listen();
});

afterAll(async () => {
  await proxy.close();
  upstream.close();
  echo.close();
  tlsUp.close();
  await db.close();
});

beforeEach(async () => {
  seen = [];
  policy = null;
  await repo.flush();
  await db.run('DELETE FROM egress_log');
});

function listen(s: net.Server): Promise<number> {
  return new Promise((r) => s.listen(0, '127.0.0.1', () => r((s.address() as net.AddressInfo).port)));
}

const use = (document: PolicyDocument, name = 'test policy') => (policy = { id: 'hp_11111111-2222-4333-8444-555555555555', name, document });

/** Sends raw bytes to the proxy as a box would, returns the whole answer and what was sent. */
function raw(request: string): Promise<{ sent: string; status: number; text: string }> {
  return new Promise((resolveP, reject) => {
    const s = net.connect(proxyPort, '127.0.0.1', () => s.write(request));
    let text = '';
    s.on('data', (c) => (text += c));
    s.on('error', reject);
    s.on('end', () => resolveP({ sent: request, status: Number(text.split(' ')[1]), text }));
  });
}
const get = (url: string, extra = '') => raw(`GET ${url} HTTP/1.1\r\nHost: ${new URL(url).host}\r\n${extra}Connection: close\r\n\r\n`);

function connect(authority: string, payload: string): Promise<{ status: number; head: string; echoed: string }> {
  return new Promise((resolveP, reject) => {
    const s = net.connect(proxyPort, '127.0.0.1', () => s.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`));
    let buf = '';
    let head = '';
    s.on('data', (c) => {
      buf += c;
      if (!head && buf.includes('\r\n\r\n')) {
        head = buf.slice(0, buf.indexOf('\r\n\r\n'));
        buf = buf.slice(head.length + 4);
        if (head.startsWith('HTTP/1.1 200')) s.write(payload);
      }
      if (head.startsWith('HTTP/1.1 200') && buf.length >= payload.length) s.end();
    });
    s.on('error', reject);
    s.on('close', () => resolveP({ status: Number(head.split(' ')[1]), head, echoed: buf }));
  });
}

describe('egress proxy: plain HTTP', () => {
  it('with no policy allows and logs', async () => {
    const r = await get(`http://api.example.test/v1/x?q=1`);
    expect(r.status).toBe(200);
    expect(r.text).toContain('upstream saw GET /v1/x?q=1');
    expect(seen[0]!.headers.host).toBe('api.example.test');
    const { rows } = await repo.page(BOX, 10, 0);
    expect(rows[0]).toMatchObject({
      method: 'GET',
      host: 'api.example.test',
      port: 80,
      path: '/v1/x',
      verdict: 'allow',
      policy_id: null,
      rule_index: null,
      status: 200,
      bytes_out: 0,
    });
    expect(rows[0]!.bytes_in).toBe('upstream saw GET /v1/x?q=1'.length);
    expect(rows[0]).toMatchObject({ injected_headers: [], upgraded_to_https: false });
  });

  it('allows a listed host and refuses another with a 403 naming the policy', async () => {
    use({ 'api.example.test': { rules: [] } }, 'only-api');
    expect((await get('http://api.example.test/ok')).status).toBe(200);
    const denied = await get('http://other.example.test/nope');
    expect(denied.status).toBe(403);
    expect(denied.text).toContain('only-api');
    expect(denied.text).toContain('hp_11111111-2222-4333-8444-555555555555');
    expect(seen.map((s) => s.url)).toEqual(['/ok']);
    const { rows } = await repo.page(BOX, 10, 0);
    expect(rows.map((r) => [r.host, r.verdict, r.status])).toEqual([
      ['other.example.test', 'deny', 403],
      ['api.example.test', 'allow', 200],
    ]);
    // The log says why (issue 29): the refusal the box got; nothing for a forwarded request.
    expect(denied.text).toContain(rows[0]!.reason!);
    expect(rows[0]!.reason).toContain('no policy entry matches host other.example.test');
    expect(rows[1]!.reason).toBeNull();
  });

  it('*.domain matches exactly one level of subdomain', async () => {
    use({ '*.example.test': { rules: [] } });
    expect((await get('http://a.example.test/')).status).toBe(200);
    expect((await get('http://a.b.example.test/')).status).toBe(403);
    expect((await get('http://example.test/')).status).toBe(403);
    expect(seen).toHaveLength(1);
  });

  it('method and path rules; a respond rule answers locally without reaching the upstream', async () => {
    use({
      'api.example.test': {
        rules: [{ match: { path: { prefix: '/admin' } }, respond: { status: 418, body: 'no admin from boxes' } }, { match: { method: 'GET' } }],
      },
    });
    const r = await get('http://api.example.test/admin/users');
    expect(r.status).toBe(418);
    expect(r.text.endsWith('no admin from boxes')).toBe(true);
    expect((await raw('POST http://api.example.test/x HTTP/1.1\r\nHost: api.example.test\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi')).status).toBe(
      403,
    );
    expect((await get('http://api.example.test/x')).status).toBe(200);
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual(['GET /x']);
    const rows = (await repo.page(BOX, 10, 0)).rows.reverse();
    expect(rows.map((x) => [x.verdict, x.rule_index, x.status])).toEqual([
      ['respond', 0, 418],
      ['deny', null, 403],
      ['allow', 1, 200],
    ]);
    expect(rows[0]!.reason).toMatch(/^Answered by .*rule 0/);
  });

  it('injects a header from a secret on the host: the upstream gets it, the box never sent it', async () => {
    use({ 'api.example.test': { rules: [{ request: { set: { headers: { Authorization: 'Bearer ${secrets.API_TOKEN}' } } } }] } });
    // An explicit port keeps plain HTTP (the default port would go on over HTTPS: next test).
    const r = await raw(
      `POST http://api.example.test:80/v1/chat HTTP/1.1\r\nHost: api.example.test\r\nAuthorization: Bearer from-the-box\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello`,
    );
    expect(r.status).toBe(200);
    expect(seen[0]!.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(seen[0]!.body).toBe('hello');
    expect(r.sent).not.toContain(SECRET);
    expect(r.text).not.toContain(SECRET);
    const row = (await repo.page(BOX, 1, 0)).rows[0]!;
    expect(row).toMatchObject({ verdict: 'allow', rule_index: 0, bytes_out: 5, upgraded_to_https: false });
    // The log names the header and the secret it came from, never the value.
    expect(row.injected_headers).toEqual([{ name: 'authorization', secret: 'API_TOKEN' }]);
    expect(JSON.stringify(row)).not.toContain(SECRET);
  });

  it('a request whose rule injects a secret goes on over HTTPS to port 443, with the certificate checked', async () => {
    use({ 'tls.example.test': { rules: [{ request: { set: { headers: { 'x-api-key': '${secrets.API_TOKEN}' } } } }] } });
    const r = await get('http://tls.example.test/v1/models');
    expect(r.status).toBe(200);
    expect(r.text).toContain('tls upstream saw GET /v1/models key=' + SECRET);
    expect((await repo.page(BOX, 1, 0)).rows[0]).toMatchObject({
      host: 'tls.example.test',
      verdict: 'allow',
      status: 200,
      upgraded_to_https: true,
      injected_headers: [{ name: 'x-api-key', secret: 'API_TOKEN' }],
    });
    // A certificate for another name is refused rather than trusted.
    use({ 'other.example.test': { rules: [{ request: { set: { headers: { 'x-api-key': '${secrets.API_TOKEN}' } } } }] } });
    const bad = await get('http://other.example.test/v1/models');
    expect(bad.status).toBe(502);
    expect((await repo.page(BOX, 1, 0)).rows[0]).toMatchObject({ host: 'other.example.test', upgraded_to_https: true });
  });

  it('a missing secret refuses the request instead of sending the template', async () => {
    use({ 'api.example.test': { rules: [{ request: { set: { headers: { 'x-key': '${secrets.NOPE}' } } } }] } });
    const r = await get('http://api.example.test/');
    expect(r.status).toBe(502);
    expect(r.text).toContain('NOPE');
    expect(seen).toHaveLength(0);
  });

  it('host.box.internal reaches a server on the host loopback, under the policy', async () => {
    expect((await get(`http://host.box.internal:${upPort}/hello`)).text).toContain('upstream saw GET /hello');
    use({ 'api.example.test': { rules: [] } });
    expect((await get(`http://host.box.internal:${upPort}/hello`)).status).toBe(403);
    use({ 'host.box.internal': { rules: [] } });
    expect((await get(`http://host.box.internal:${upPort}/again`)).status).toBe(200);
    expect(seen.map((s) => s.url)).toEqual(['/hello', '/again']);
  });

  it('an entry with ports ["gateway"] lets only the gateway port of host.box.internal through, plain and CONNECT', async () => {
    deps.gateway = { isGateway: () => false, port: () => upPort, authorize: () => true };
    try {
      use({ 'host.box.internal': { ports: ['gateway'], rules: [] } });
      expect((await get(`http://host.box.internal:${upPort}/gw`)).status).toBe(200);
      const other = await get(`http://host.box.internal:${echoPort}/db`);
      expect(other.status).toBe(403);
      expect(other.text).toContain(`does not allow port ${echoPort}`);
      const tunnel = await connect(`host.box.internal:${echoPort}`, 'x');
      expect(tunnel.status).toBe(403);
      expect(tunnel.echoed).toContain(`does not allow port ${echoPort}`);
      expect((await connect(`host.box.internal:${upPort}`, 'GET /t HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).status).toBe(200);
      expect(seen.map((x) => x.url)).toEqual(['/gw', '/t']);
    } finally {
      delete deps.gateway;
    }
  });

  it("a CONNECT tunnel to the gateway is served request by request, with the box's key exchanged (never relayed raw)", async () => {
    deps.gateway = {
      isGateway: (h, p) => h === 'host.box.internal' && p === upPort,
      port: () => upPort,
      authorize: (_box, headers) => {
        const ok = headers.authorization === 'Bearer bxb_good';
        delete headers.authorization;
        if (ok) headers['x-internal'] = 'yes';
        return ok;
      },
    };
    try {
      seen = [];
      const req = (key: string) =>
        `POST /v1/responses HTTP/1.1\r\nHost: host.box.internal:${upPort}\r\nAuthorization: Bearer ${key}\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`;
      const ok = await connect(`host.box.internal:${upPort}`, req('bxb_good'));
      expect(ok.status).toBe(200);
      expect(ok.echoed).toMatch(/^HTTP\/1\.1 200 /);
      expect(ok.echoed).toContain('upstream saw POST /v1/responses');
      expect(seen).toHaveLength(1);
      expect(seen[0]!.headers).toMatchObject({ 'x-internal': 'yes' });
      expect(seen[0]!.headers.authorization).toBeUndefined();
      const bad = await connect(`host.box.internal:${upPort}`, req('bxb_wrong'));
      expect(bad.echoed).toMatch(/^HTTP\/1\.1 401 /);
      expect(bad.echoed).toContain("needs this box's own key");
      expect(seen).toHaveLength(1);
    } finally {
      delete deps.gateway;
    }
  });

  it('loopback by any other name is refused (host.box.internal is the only door)', async () => {
    const r = await get(`http://127.0.0.1:${upPort}/`);
    expect(r.status).toBe(403);
    expect(r.text).toContain('host.box.internal');
    expect((await get(`http://localhost:${upPort}/`)).status).toBe(403);
    expect(seen).toHaveLength(0);
  });

  it('an origin-form request is answered with a hint, not forwarded', async () => {
    const r = await raw('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(r.status).toBe(400);
    expect(r.text).toContain('absolute form');
  });
});

describe('egress proxy: CONNECT', () => {
  it('opens a tunnel to an allowed host and relays bytes both ways', async () => {
    use({ 'secure.example.test': { rules: [{ match: { method: 'GET' } }] } });
    const r = await connect('secure.example.test:443', 'ping through the tunnel');
    expect(r.status).toBe(200);
    expect(r.echoed).toBe('ping through the tunnel');
    await new Promise((res) => setTimeout(res, 50));
    expect((await repo.page(BOX, 1, 0)).rows[0]).toMatchObject({
      method: 'CONNECT',
      host: 'secure.example.test',
      port: 443,
      path: null,
      verdict: 'allow',
      rule_index: 0,
      status: 200,
      bytes_out: 23,
      bytes_in: 23,
    });
  });

  it('refuses a host the policy does not list, with a 403 naming the policy', async () => {
    use({ 'secure.example.test': { rules: [] } }, 'tls-only');
    const r = await connect('evil.example.test:443', 'x');
    expect(r.status).toBe(403);
    expect(r.echoed).toContain('tls-only');
    expect((await repo.page(BOX, 1, 0)).rows[0]).toMatchObject({ method: 'CONNECT', verdict: 'deny', status: 403 });
    expect((await repo.page(BOX, 1, 0)).rows[0]!.reason).toContain('tls-only');
  });

  it('an unconditional respond rule answers the CONNECT itself', async () => {
    use({ '*': { rules: [{ respond: { status: 451, body: 'blocked' } }] } });
    const r = await connect('secure.example.test:443', 'x');
    expect(r.status).toBe(451);
    expect(r.echoed).toBe('blocked');
  });
});

describe('egress log', () => {
  it('pages newest first and keeps only the last N entries of a box', async () => {
    for (let i = 0; i < 25; i++)
      repo.add(BOX, {
        at: new Date().toISOString(),
        method: 'GET',
        host: `h${i}.test`,
        port: 80,
        path: '/',
        verdict: 'allow',
        policy_id: null,
        rule_index: null,
        status: 200,
        bytes_out: 0,
        bytes_in: 0,
        scheme: 'http',
        duration_ms: 1,
        reason: null,
      });
    repo.add('box_other', {
      at: new Date().toISOString(),
      method: 'GET',
      host: 'x',
      port: 80,
      path: '/',
      verdict: 'deny',
      policy_id: null,
      rule_index: null,
      status: 403,
      bytes_out: 0,
      bytes_in: 0,
      scheme: 'http',
      duration_ms: 1,
      reason: null,
    });
    const first = await repo.page(BOX, 5, 0);
    expect(first.total).toBeLessThanOrEqual(22);
    expect(first.total).toBeGreaterThanOrEqual(20);
    expect(first.rows.map((r) => r.host)).toEqual(['h24.test', 'h23.test', 'h22.test', 'h21.test', 'h20.test']);
    expect((await repo.page(BOX, 5, 5)).rows[0]!.host).toBe('h19.test');
    expect((await repo.page('box_other', 5, 0)).total).toBe(1);
  });
});
