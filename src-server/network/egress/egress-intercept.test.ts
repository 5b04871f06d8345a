/**
 * TLS interception in the box egress proxy, without a VM: a real EgressCa (SQLite + the data
 * dir's CryptoBox), loopback HTTPS upstreams with their own self-signed certificates given
 * as the extra roots (what BOX_EGRESS_CA_FILE does in the service), and clients speaking
 * CONNECT + TLS exactly as curl or Python in a box do.
 */
import { sendBody } from '../../test-support/send-bulk.js';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { selfSignedCert } from '../../test-support/self-signed.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import type { PolicyDocument } from '../../contract/policies.js';
import { openDatabase, type Db } from '../../db/connection.js';
import { CryptoBox } from '../../util/crypto-box.js';
import { EgressCa } from '../tls/egress-ca.js';
import type { PolicyRef } from './decide.js';
import { EgressRepo } from './egress-log-repo.js';
import type { ProxyDeps } from './proxy-deps.js';
import { h2Text, listen, startTestEgress, type TestEgress } from '../test-support/egress.js';

const BOX = 'box_00000000-0000-4000-8000-0000000000aa';
const SECRET = 'sk-live-intercepted-secret-never-in-the-box';
let dataDir: string;
let db: Db;
let repo: EgressRepo;
let ca: EgressCa;
let egress: TestEgress;
let proxyPort: number;
let policy: PolicyRef | null = null;
let good: https.Server;
let goodPort: number;
let goodCert: string;
let bad: https.Server;
let badPort: number;
let seen: { method: string; url: string; headers: http.IncomingHttpHeaders; bytes: number }[] = [];
const BIG = 32 * 1024 * 1024;
/** Random, so that a piece of the download relayed twice or out of place changes its hash. */
const BIG_BODY = randomBytes(BIG);
/** The upstream connection that last served /big: how much of it the upstream has sent. */
let bigSocket: net.Socket | undefined;

const selfSigned = (cn: string) => {
  const { key, cert } = selfSignedCert(cn);
  return { key, cert };
};
const use = (document: PolicyDocument) => (policy = { id: 'hp_11111111-2222-4333-8444-555555555555', name: 'icpt', document });

beforeAll(async () => {
  const kc = selfSigned('api.example.test');
  goodCert = kc.cert;
  good = https.createServer(kc, (req, res) => {
    let bytes = 0;
    req.on('data', (c: Buffer) => (bytes += c.length));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, bytes });
      if (req.url === '/big') {
        bigSocket = res.socket!;
        return sendBody(res, BIG_BODY);
      }
      res.end(`upstream saw ${req.method} ${req.url} key=${req.headers['x-api-key'] ?? '-'} bytes=${bytes}`);
    });
  });
  const wss = new WebSocketServer({ server: good });
  wss.on('connection', (ws, req) => ws.on('message', (m) => ws.send(`echo:${m.toString()} key=${req.headers['x-api-key'] ?? '-'}`)));
  goodPort = await listen(good);
  bad = https.createServer(selfSigned('evil.example.test'), (_req, res) => res.end('should never be seen'));
  badPort = await listen(bad);
  const resolve: ProxyDeps['resolve'] = (host, port) => ({
    host: '127.0.0.1',
    port: host.startsWith('evil') ? badPort : port === 443 ? goodPort : port,
    internal: true,
  });
  egress = await startTestEgress('icpt', BOX, {
    policyFor: async () => policy,
    secretFor: async (_b, n) => (n === 'API_KEY' ? SECRET : undefined),
    resolve,
    tlsCa: goodCert,
  });
  ({ dataDir, db, repo, ca, port: proxyPort } = egress);
});

afterAll(async () => {
  await egress.close();
  good.closeAllConnections();
  good.close();
  bad.close();
});

beforeEach(async () => {
  seen = [];
  policy = null;
  await repo.flush();
  await db.run('DELETE FROM egress_log');
});

/** CONNECT through the proxy then TLS, trusting only the install's egress CA (as a box does). */
async function tunnel(host: string, alpn?: string[], trust = ca.info.certificate): Promise<{ status: number; tls?: tls.TLSSocket }> {
  const req = http.request({ host: '127.0.0.1', port: proxyPort, method: 'CONNECT', path: `${host}:443` });
  req.end();
  const [res, socket] = (await once(req, 'connect')) as [http.IncomingMessage, net.Socket];
  if (res.statusCode !== 200) return { status: res.statusCode! };
  const t = tls.connect({ socket, servername: host, ca: trust, ...(alpn ? { ALPNProtocols: alpn } : {}) });
  await once(t, 'secureConnect');
  return { status: 200, tls: t };
}

/** A keep-alive agent whose one connection is the given tunnel: consecutive requests reuse it, as a client's pool would. */
const agents = new WeakMap<tls.TLSSocket, https.Agent>();
function agentOver(t: tls.TLSSocket) {
  let a = agents.get(t);
  if (!a) {
    a = new https.Agent({ keepAlive: true, maxSockets: 1 });
    (a as unknown as { createConnection: () => tls.TLSSocket }).createConnection = () => t;
    agents.set(t, a);
  }
  return a;
}

function request(t: tls.TLSSocket, host: string, method: string, p: string, body?: Buffer | string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; text: string; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
    const r = https.request({ host, method, path: p, headers: { ...headers }, agent: agentOver(t) }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, text, headers: res.headers }));
    });
    r.on('error', reject);
    r.end(body);
  });
}

describe('egress TLS interception', () => {
  it('GET allowed with a secret injected on the host, two requests on one kept-alive connection, each logged with method and path', async () => {
    use({
      'api.example.test': {
        rules: [{ match: { method: 'GET', path: { prefix: '/v1/' } }, request: { set: { headers: { 'X-Api-Key': '${secrets.API_KEY}' } } } }],
      },
    });
    const { tls: t } = await tunnel('api.example.test');
    const peer = t!.getPeerCertificate();
    expect(peer.issuer.CN).toMatch(/Box Desktop egress CA/);
    const a = await request(t!, 'api.example.test', 'GET', '/v1/models?x=1', undefined, { 'x-api-key': 'box-supplied-junk' });
    expect(a.status).toBe(200);
    expect(a.text).toBe(`upstream saw GET /v1/models?x=1 key=${SECRET} bytes=0`);
    const b = await request(t!, 'api.example.test', 'GET', '/v1/other');
    expect(b.text).toContain('GET /v1/other');
    const refused = await request(t!, 'api.example.test', 'DELETE', '/v1/models');
    expect(refused.status).toBe(403);
    expect(refused.text).toMatch(/no rule of host entry api\.example\.test matches DELETE \/v1\/models/);
    t!.destroy();
    const log = (await repo.page(BOX, 10, 0)).rows.reverse();
    expect(log.map((e) => [e.method, e.path, e.scheme, e.verdict, e.status, e.rule_index])).toEqual([
      ['GET', '/v1/models', 'https', 'allow', 200, 0],
      ['GET', '/v1/other', 'https', 'allow', 200, 0],
      ['DELETE', '/v1/models', 'https', 'deny', 403, null],
    ]);
    expect(log[0]!.duration_ms).toBeGreaterThanOrEqual(0);
    expect(JSON.stringify(log)).not.toContain(SECRET);
  });

  it('a POST answered locally by a method rule never reaches the upstream', async () => {
    use({ 'api.example.test': { rules: [{ match: { method: 'POST' }, respond: { status: 418, body: 'no posting from boxes' } }, {}] } });
    const { tls: t } = await tunnel('api.example.test');
    const r = await request(t!, 'api.example.test', 'POST', '/v1/upload', 'payload');
    expect([r.status, r.text, r.headers['x-box-egress']]).toEqual([418, 'no posting from boxes', 'respond']);
    expect(seen).toEqual([]);
    t!.destroy();
  });

  it('an upstream whose certificate fails verification is refused with a clear answer, never passed through', async () => {
    use({ '*': { rules: [] } });
    const { tls: t } = await tunnel('evil.example.test');
    const r = await request(t!, 'evil.example.test', 'GET', '/');
    expect(r.status).toBe(502);
    expect(r.headers['x-box-egress']).toBe('upstream-untrusted');
    expect(r.text).toMatch(
      /refused evil\.example\.test: its TLS certificate failed verification \((DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE)/,
    );
    expect(r.text).not.toContain('should never be seen');
    t!.destroy();
  });

  it('speaks HTTP/2 to a client that offers h2 in ALPN', async () => {
    use({ 'api.example.test': { rules: [{ request: { set: { headers: { 'x-api-key': '${secrets.API_KEY}' } } } }] } });
    const { tls: t } = await tunnel('api.example.test', ['h2', 'http/1.1']);
    expect(t!.alpnProtocol).toBe('h2');
    const session = http2.connect('https://api.example.test', { createConnection: () => t! });
    const text = await h2Text(session, { ':method': 'GET', ':path': '/h2?y=2' }, (s) => s.end());
    expect(text).toBe(`upstream saw GET /h2?y=2 key=${SECRET} bytes=0`);
    // A body of unknown length (HTTP/2 needs none) goes on to the HTTP/1.1 origin chunked.
    const posted = await h2Text(session, { ':method': 'POST', ':path': '/up' }, (s) => {
      s.write(Buffer.alloc(70_000, 1));
      setTimeout(() => s.end(Buffer.alloc(5, 2)), 20);
    });
    expect(posted).toBe(`upstream saw POST /up key=${SECRET} bytes=70005`);
    expect(seen.at(-1)!.headers['transfer-encoding']).toBe('chunked');
    session.close();
    expect((await repo.page(BOX, 2, 0)).rows.map((r) => [r.method, r.path, r.status, r.bytes_out])).toEqual([
      ['POST', '/up', 200, 70005],
      ['GET', '/h2', 200, 0],
    ]);
  });

  it('holds the upstream back while an HTTP/2 client reads nothing, then relays the whole body', async () => {
    use({ 'api.example.test': { rules: [] } });
    const { tls: t } = await tunnel('api.example.test', ['h2', 'http/1.1']);
    const session = http2.connect('https://api.example.test', { createConnection: () => t! });
    const s = session.request({ ':method': 'GET', ':path': '/big' });
    const h = createHash('sha256');
    let bytes = 0;
    s.once('data', (c: Buffer) => {
      bytes += c.length;
      h.update(c);
      s.pause();
    });
    await new Promise((r) => setTimeout(r, 800));
    // The proxy stopped reading the upstream: kernel buffers and one window hold a few MB, not 32.
    expect(bigSocket!.bytesWritten).toBeLessThan(BIG / 2);
    s.on('data', (c: Buffer) => ((bytes += c.length), h.update(c)));
    s.resume();
    await once(s, 'end');
    session.close();
    expect(bytes).toBe(BIG);
    expect(h.digest('hex')).toBe(createHash('sha256').update(BIG_BODY).digest('hex'));
  });

  it('relays a WebSocket upgrade, with the secret header injected on the host', async () => {
    use({ 'api.example.test': { rules: [{ match: { path: { prefix: '/ws' } }, request: { set: { headers: { 'x-api-key': '${secrets.API_KEY}' } } } }] } });
    const { tls: t } = await tunnel('api.example.test', ['http/1.1']);
    const ws = new WebSocket('wss://api.example.test/ws', { createConnection: () => t! } as unknown as WebSocket.ClientOptions);
    await once(ws, 'open');
    ws.send('hello');
    const [msg] = await once(ws, 'message');
    expect(String(msg)).toBe(`echo:hello key=${SECRET}`);
    ws.close();
    await once(ws, 'close');
    // the entry is written when the exchange ends: waited for, not a fixed 50 ms (a loaded machine)
    await vi.waitFor(async () => expect((await repo.page(BOX, 1, 0)).rows[0]).toMatchObject({ method: 'GET', path: '/ws', scheme: 'https', status: 101 }), {
      timeout: 10_000,
    });
  });

  it(`streams ${BIG >> 20} MB each way without buffering the body`, async () => {
    use({ 'api.example.test': { rules: [] } });
    const { tls: t } = await tunnel('api.example.test');
    const body = Buffer.alloc(BIG, 3);
    const up = await request(t!, 'api.example.test', 'PUT', '/upload', body);
    expect(up.text).toBe(`upstream saw PUT /upload key=- bytes=${BIG}`);
    const down = await new Promise<{ bytes: number; sha: string }>((resolve, reject) => {
      const h = createHash('sha256');
      let bytes = 0;
      https
        .request({ host: 'api.example.test', path: '/big', agent: agentOver(t!) }, (res) => {
          res.on('data', (c: Buffer) => ((bytes += c.length), h.update(c)));
          res.on('end', () => resolve({ bytes, sha: h.digest('hex') }));
        })
        .on('error', reject)
        .end();
    });
    expect(down.bytes).toBe(BIG);
    expect(down.sha).toBe(createHash('sha256').update(BIG_BODY).digest('hex'));
    t!.destroy();
    await vi.waitFor(
      async () =>
        expect((await repo.page(BOX, 2, 0)).rows.map((r) => [r.method, r.bytes_out, r.bytes_in])).toEqual([
          ['GET', 0, BIG],
          ['PUT', BIG, up.text.length],
        ]),
      { timeout: 10_000 },
    );
  });

  it('tls: "passthrough" relays the bytes untouched: the client sees the upstream\'s own certificate', async () => {
    use({ 'api.example.test': { rules: [], tls: 'passthrough' } });
    const { tls: t } = await tunnel('api.example.test', undefined, goodCert);
    expect(t!.getPeerCertificate().issuer.CN).toBe('api.example.test');
    const r = await request(t!, 'api.example.test', 'GET', '/direct');
    expect(r.text).toContain('GET /direct');
    t!.destroy();
    await new Promise((res) => setTimeout(res, 50));
    expect((await repo.page(BOX, 1, 0)).rows[0]).toMatchObject({ method: 'CONNECT', path: null, scheme: 'tunnel' });
  });

  it('a host the policy does not list is refused at CONNECT', async () => {
    use({ 'api.example.test': { rules: [] } });
    expect((await tunnel('elsewhere.example.test')).status).toBe(403);
  });
});

describe('egress CA', () => {
  it('survives a restart, keeps its key sealed at rest, and rotates to a new key', async () => {
    const again = await EgressCa.open(db, () => CryptoBox.forDataDir(dataDir));
    expect(again.info).toEqual(ca.info);
    expect(ca.info.certificate).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect(ca.info.fingerprint_sha256).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    const row = (await db.get('SELECT key_sealed FROM egress_ca')) as { key_sealed: Buffer };
    const pkcs8Prefix = Buffer.from('308187020100301306072a8648ce3d020106082a8648ce3d030107', 'hex');
    expect(row.key_sealed.includes(pkcs8Prefix)).toBe(false);
    const x = new (await import('node:crypto')).X509Certificate(ca.info.certificate);
    expect(x.ca).toBe(true);
    const before = again.info.fingerprint_sha256;
    const rotated = await again.rotate();
    expect(rotated.fingerprint_sha256).not.toBe(before);
    expect((await EgressCa.open(db, () => CryptoBox.forDataDir(dataDir))).info.fingerprint_sha256).toBe(rotated.fingerprint_sha256);
  });

  it('a replaced CA stays trusted for its grace period, across a restart, then drops out', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'egress-grace-'));
    const gdb = await openDatabase(dir);
    const open = async () => await EgressCa.open(gdb, () => CryptoBox.forDataDir(dir), 60_000);
    const ca1 = await open();
    const old = ca1.info;
    const t0 = Date.now();
    const now = await ca1.rotate();
    expect(ca1.trusted().map((c) => c.fingerprint_sha256)).toEqual([now.fingerprint_sha256, old.fingerprint_sha256]);
    expect(ca1.trusted()[1]!.certificate).toBe(old.certificate);
    const end = ca1.nextGraceEnd()!;
    expect(end).toBeGreaterThanOrEqual(t0 + 60_000);
    expect(end).toBeLessThan(Date.now() + 60_001);
    const reopened = await open();
    expect(reopened.trusted().map((c) => c.fingerprint_sha256)).toEqual([now.fingerprint_sha256, old.fingerprint_sha256]);
    expect(reopened.trusted(end + 1).map((c) => c.fingerprint_sha256)).toEqual([now.fingerprint_sha256]);
    expect(reopened.nextGraceEnd(end + 1)).toBeUndefined();
    // New leaves come from the new CA only.
    const { X509Certificate } = await import('node:crypto');
    const leaf = new X509Certificate((await reopened.contextFor('grace.example.test')).cert);
    expect(leaf.checkIssued(new X509Certificate(now.certificate))).toBe(true);
    expect(leaf.checkIssued(new X509Certificate(old.certificate))).toBe(false);
    await gdb.close();
  });
});
