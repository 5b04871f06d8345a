/**
 * The intercepting proxy's upstream side, without a VM: the upstream leg speaks what the box's
 * leg speaks. An HTTP/2 request to an origin that offers h2 in ALPN goes as a stream of one
 * HTTP/2 session per box and origin, with the same headers, secret injection, refusals and
 * log entries as over HTTP/1.1; an HTTP/1.1 request goes over HTTP/1.1 whatever the origin
 * offers. Both legs of an intercepted request prefer AES-128-GCM. Real EgressCa, loopback origins with their own
 * self-signed certificates given as the extra roots (what BOX_EGRESS_CA_FILE does).
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import type net from 'node:net';
import tls from 'node:tls';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Db } from '../../db/connection.js';
import { selfSignedCert } from '../../test-support/self-signed.js';
import { sendBulk } from '../../test-support/send-bulk.js';
import { EgressCa } from '../tls/egress-ca.js';
import { EgressRepo } from './egress-log-repo.js';
import type { ProxyDeps } from './proxy-deps.js';
import { h2Text, listen, startTestEgress, type TestEgress } from '../test-support/egress.js';

const BOX = 'box_00000000-0000-4000-8000-0000000000bb';
const SECRET = 'sk-live-h2-upstream-secret-never-in-the-box';
const BIG = 24 * 1024 * 1024;
const H2_HOST = 'h2.example.test';
const H1_HOST = 'h1.example.test';
const EVIL = 'evil-h2.example.test';

interface Seen {
  host: string;
  version: string;
  method: string;
  url: string;
  authority: string | undefined;
  key: string | undefined;
  bytes: number;
  cipher: string;
}
let seen: Seen[] = [];
let h2Sessions = 0;
let h1Connections = 0;
let db: Db;
let repo: EgressRepo;
let ca: EgressCa;
let egress: TestEgress;
let proxyPort: number;
let deps: ProxyDeps;
const servers: net.Server[] = [];

/** What both origins answer: the request as they saw it (HTTP version, Host/:authority, injected key, body size). */
function handler(host: string) {
  return (req: http.IncomingMessage | http2.Http2ServerRequest, res: http.ServerResponse | http2.Http2ServerResponse) => {
    let bytes = 0;
    req.on('data', (c: Buffer) => (bytes += c.length));
    req.on('end', () => {
      const authority = (req.headers[':authority'] as string | undefined) ?? req.headers.host;
      const cipher = (req.socket as tls.TLSSocket).getCipher().standardName;
      seen.push({
        host,
        version: req.httpVersion,
        method: req.method!,
        url: req.url!,
        authority,
        key: req.headers['x-api-key'] as string | undefined,
        bytes,
        cipher,
      });
      if (req.url === '/big') return sendBulk(res as http.ServerResponse, Buffer.alloc(1024 * 1024, 9), BIG);
      (res as http.ServerResponse).setHeader('x-origin', host);
      res.end(`${host} saw ${req.method} ${req.url} key=${req.headers['x-api-key'] ?? '-'} bytes=${bytes}`);
    });
  };
}

beforeAll(async () => {
  const h2c = selfSignedCert(H2_HOST);
  const h1c = selfSignedCert(H1_HOST);
  const h2o = http2.createSecureServer({ key: h2c.key, cert: h2c.cert, allowHTTP1: true }, handler(H2_HOST));
  h2o.on('session', () => h2Sessions++);
  // Chooses by the client's cipher order (nginx's default), so the proxy's own offer shows.
  const h1o = https.createServer({ key: h1c.key, cert: h1c.cert, honorCipherOrder: false }, handler(H1_HOST));
  h1o.on('secureConnection', () => h1Connections++);
  const evil = http2.createSecureServer({ ...selfSignedCert(EVIL), allowHTTP1: true }, (_q, r) => r.end('should never be seen'));
  servers.push(h2o, h1o, evil);
  const ports: Record<string, number> = { [H2_HOST]: await listen(h2o), [H1_HOST]: await listen(h1o), [EVIL]: await listen(evil) };
  egress = await startTestEgress('h2', BOX, {
    policyFor: async () => ({
      id: 'hp_22222222-2222-4333-8444-555555555555',
      name: 'h2',
      document: {
        '*.example.test': {
          rules: [
            { match: { method: 'POST', path: { prefix: '/local' } }, respond: { status: 418, body: 'answered by the proxy' } },
            { match: { method: 'DELETE' }, respond: { status: 403, body: 'no' } },
            { request: { set: { headers: { 'X-Api-Key': '${secrets.API_KEY}' } } } },
          ],
        },
      },
    }),
    secretFor: async (_b, n) => (n === 'API_KEY' ? SECRET : undefined),
    resolve: (host) => ({ host: '127.0.0.1', port: ports[host]!, internal: true }),
    tlsCa: [h2c.cert, h1c.cert].join('\n'),
  });
  ({ db, repo, ca, deps, port: proxyPort } = egress);
});

afterAll(async () => {
  await egress.close();
  for (const s of servers) s.close();
});

beforeEach(async () => {
  seen = [];
  await repo.flush();
  await db.run('DELETE FROM egress_log');
});

/** CONNECT through the proxy then TLS trusting only the install's egress CA, as a box's client does. */
async function tunnel(host: string, opts: tls.ConnectionOptions = {}): Promise<tls.TLSSocket> {
  const req = http.request({ host: '127.0.0.1', port: proxyPort, method: 'CONNECT', path: `${host}:443` });
  req.end();
  const [res, socket] = (await once(req, 'connect')) as [http.IncomingMessage, net.Socket];
  expect(res.statusCode).toBe(200);
  const t = tls.connect({ socket, servername: host, ca: ca.info.certificate, ...opts });
  await once(t, 'secureConnect');
  return t;
}

/** One HTTP/1.1 request over its own tunnel. */
async function request(host: string, method: string, p: string, body?: Buffer | string) {
  const t = await tunnel(host);
  const agent = new https.Agent();
  (agent as unknown as { createConnection: () => tls.TLSSocket }).createConnection = () => t;
  return new Promise<{ status: number; text: string; headers: http.IncomingHttpHeaders; sha: string }>((resolve, reject) => {
    const r = https.request({ host, method, path: p, headers: { 'x-api-key': 'box-supplied-junk' }, agent }, (res) => {
      const chunks: Buffer[] = [];
      const h = createHash('sha256');
      res.on('data', (c: Buffer) => (chunks.push(c), h.update(c)));
      res.on('end', () => {
        t.destroy();
        const all = Buffer.concat(chunks);
        resolve({ status: res.statusCode!, text: all.length < 4096 ? all.toString() : '', headers: res.headers, sha: h.digest('hex') });
      });
    });
    r.on('error', reject);
    r.end(body);
  });
}

/** One HTTP/2 request over its own tunnel (the box's client offers only h2). */
async function requestH2(host: string, method: string, p: string, body?: Buffer | string) {
  const t = await tunnel(host, { ALPNProtocols: ['h2'] });
  expect(t.alpnProtocol).toBe('h2');
  const session = http2.connect(`https://${host}`, { createConnection: () => t });
  return new Promise<{ status: number; text: string; headers: http.IncomingHttpHeaders; sha: string }>((resolve, reject) => {
    const s = session.request({ ':method': method, ':path': p, 'x-api-key': 'box-supplied-junk' });
    let head: http2.IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    const h = createHash('sha256');
    s.on('response', (rh) => (head = rh));
    s.on('data', (c: Buffer) => (chunks.push(c), h.update(c)));
    s.on('end', () => {
      session.close();
      const all = Buffer.concat(chunks);
      resolve({
        status: Number(head[':status']),
        text: all.length < 4096 ? all.toString() : '',
        headers: head as http.IncomingHttpHeaders,
        sha: h.digest('hex'),
      });
    });
    s.on('error', reject);
    s.end(body);
  });
}

const logged = async () => {
  await repo.flush();
  return (await repo.page(BOX, 20, 0)).rows
    .reverse()
    .map((e) => [e.method, e.host, e.path, e.scheme, e.verdict, e.rule_index, e.status, e.bytes_out, e.bytes_in]);
};

describe('HTTP/2 to origins that offer it', () => {
  it('a request over h2 carries the same headers and injected secret, and logs the same entry, as over HTTP/1.1', async () => {
    const a = await requestH2(H2_HOST, 'GET', '/v1/models?x=1');
    const b = await request(H1_HOST, 'GET', '/v1/models?x=1');
    expect([a.status, a.text, a.headers['x-origin']]).toEqual([200, `${H2_HOST} saw GET /v1/models?x=1 key=${SECRET} bytes=0`, H2_HOST]);
    expect([b.status, b.text]).toEqual([200, `${H1_HOST} saw GET /v1/models?x=1 key=${SECRET} bytes=0`]);
    expect(seen.map((s) => [s.host, s.version, s.method, s.url, s.authority, s.key])).toEqual([
      [H2_HOST, '2.0', 'GET', '/v1/models?x=1', H2_HOST, SECRET],
      [H1_HOST, '1.1', 'GET', '/v1/models?x=1', H1_HOST, SECRET],
    ]);
    await vi.waitFor(
      async () => {
        const [e2, e1] = await logged();
        expect(e2).toEqual(['GET', H2_HOST, '/v1/models', 'https', 'allow', 2, 200, 0, a.text.length]);
        expect(e1!.slice(2)).toEqual(e2!.slice(2).map((v, i) => (i === 6 ? b.text.length : v)));
      },
      { timeout: 10_000 },
    );
    expect(JSON.stringify(await logged())).not.toContain(SECRET);
  });

  it('requests of one box to one origin share one HTTP/2 session; bodies stream both ways', async () => {
    const before = h2Sessions;
    const body = Buffer.alloc(3 * 1024 * 1024 + 7, 5);
    const results = await Promise.all([
      requestH2(H2_HOST, 'PUT', '/upload', body),
      requestH2(H2_HOST, 'GET', '/big'),
      ...Array.from({ length: 6 }, (_, i) => requestH2(H2_HOST, 'GET', `/small/${i}`)),
    ]);
    expect(results[0]!.text).toBe(`${H2_HOST} saw PUT /upload key=${SECRET} bytes=${body.length}`);
    expect(results[1]!.sha).toBe(createHash('sha256').update(Buffer.alloc(BIG, 9)).digest('hex'));
    for (const r of results.slice(2)) expect(r.status).toBe(200);
    expect(seen.every((s) => s.version === '2.0')).toBe(true);
    expect(h2Sessions - before).toBeLessThanOrEqual(1);
    await vi.waitFor(
      async () => {
        const rows = await logged();
        expect(rows.find((r) => r[0] === 'PUT')!.slice(7)).toEqual([body.length, results[0]!.text.length]);
        expect(rows.find((r) => r[2] === '/big')!.slice(6)).toEqual([200, 0, BIG]);
      },
      { timeout: 10_000 },
    );
  });

  it('an origin that does not choose h2 is asked once, then served by the HTTP/1.1 keep-alive pool', async () => {
    await request(H1_HOST, 'GET', '/first');
    const before = h1Connections;
    for (let i = 0; i < 4; i++) expect((await request(H1_HOST, 'GET', `/again/${i}`)).status).toBe(200);
    expect(h1Connections - before).toBe(0);
    expect(seen.every((s) => s.version === '1.1')).toBe(true);
  });

  it('an HTTP/1.1 request goes upstream over HTTP/1.1 even to an origin that offers h2 (the cheaper path)', async () => {
    const before = h2Sessions;
    const r = await request(H2_HOST, 'GET', '/from-h1');
    expect([r.status, r.text]).toEqual([200, `${H2_HOST} saw GET /from-h1 key=${SECRET} bytes=0`]);
    expect(seen.map((x) => x.version)).toEqual(['1.1']);
    expect(h2Sessions).toBe(before);
  });

  it('HTTP/2 on both legs: a client that offers h2 to the proxy, an origin that offers h2 upstream', async () => {
    const t = await tunnel(H2_HOST, { ALPNProtocols: ['h2'] });
    expect(t.alpnProtocol).toBe('h2');
    const session = http2.connect(`https://${H2_HOST}`, { createConnection: () => t });
    const text = await h2Text(session, { ':method': 'POST', ':path': '/echo' }, (s) => s.end('twelve bytes'));
    session.close();
    expect(text).toBe(`${H2_HOST} saw POST /echo key=${SECRET} bytes=12`);
    expect(seen[0]).toMatchObject({ version: '2.0', bytes: 12 });
  });

  it('rules that answer locally never reach the h2 origin', async () => {
    const r = await request(H2_HOST, 'POST', '/local/x', 'payload');
    const d = await request(H2_HOST, 'DELETE', '/v1/thing');
    expect([r.status, r.text, r.headers['x-box-egress']]).toEqual([418, 'answered by the proxy', 'respond']);
    expect(d.status).toBe(403);
    expect(seen).toEqual([]);
  });

  it('an h2 origin whose certificate fails verification is refused, never passed through', async () => {
    const r = await requestH2(EVIL, 'GET', '/');
    expect(r.status).toBe(502);
    expect(r.headers['x-box-egress']).toBe('upstream-untrusted');
    expect(r.text).toMatch(/refused evil-h2\.example\.test: its TLS certificate failed verification/);
    expect(r.text).not.toContain('should never be seen');
  });
});

describe('cipher order of an intercepted request', () => {
  it('the box leg negotiates AES-128-GCM (ChaCha20 for a client that lists it first); upstream, AES-128-GCM is offered first', async () => {
    const t = await tunnel(H2_HOST);
    expect(t.getCipher().standardName).toBe('TLS_AES_128_GCM_SHA256');
    t.destroy();
    const chacha = await tunnel(H2_HOST, { ciphers: 'TLS_CHACHA20_POLY1305_SHA256:TLS_AES_256_GCM_SHA384:TLS_AES_128_GCM_SHA256' });
    expect(chacha.getCipher().standardName).toBe('TLS_CHACHA20_POLY1305_SHA256');
    chacha.destroy();
    await request(H1_HOST, 'GET', '/cipher');
    expect(seen[0]!.cipher).toBe('TLS_AES_128_GCM_SHA256');
  });

  it('for boxes whose CPU lacks AES (TCG), the box leg prefers ChaCha20 even when the client lists AES first', async () => {
    deps.boxLegChaCha = true;
    try {
      const t = await tunnel(H2_HOST, { ciphers: 'TLS_AES_256_GCM_SHA384:TLS_AES_128_GCM_SHA256:TLS_CHACHA20_POLY1305_SHA256' });
      expect(t.getCipher().standardName).toBe('TLS_CHACHA20_POLY1305_SHA256');
      t.destroy();
      // The request still goes through, and the upstream leg keeps its own (AES) offer.
      expect((await request(H1_HOST, 'GET', '/chacha')).status).toBe(200);
      expect(seen[0]!.cipher).toBe('TLS_AES_128_GCM_SHA256');
    } finally {
      deps.boxLegChaCha = false;
    }
    const back = await tunnel(H2_HOST);
    expect(back.getCipher().standardName).toBe('TLS_AES_128_GCM_SHA256');
    back.destroy();
  });
});
