/**
 * The proxy's own HTTP/1.1 upstream client (upstream-h1.ts): body bytes relayed as the
 * socket read them must still end exactly where the answer ends (Content-Length, chunked,
 * connection close, HEAD, interim 100), be counted into the egress log, and leave a
 * kept-alive connection reusable; request bodies go up by length or chunked. A real Node
 * HTTP server is the origin (it also checks how the proxy frames what it sends).
 */
import fc from 'fast-check';
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { PolicyDocument } from '../../contract/policies.js';
import { sendBody, sendBulk } from '../../test-support/send-bulk.js';
import { ChunkedDecoder } from './h1-body.js';
import { listen, startTestEgress, type TestEgress } from '../test-support/egress.js';

const BOX = 'box_00000000-0000-4000-8000-0000000000cc';
const HOST = 'origin.example.test';
let origin: http.Server;
let originPort: number;
let connections = 0;
let egress: TestEgress;
let document: PolicyDocument = {};
const secrets: Record<string, string> = { K: 'sk-h1-secret' };
/** Random bodies by name: a piece relayed twice, late or out of place changes the hash the box sees. */
const RANDOM = Object.fromEntries(['a', 'b', 'c'].map((k, i) => [k, randomBytes(3_000_000 + i * 77_777)]));
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

beforeAll(async () => {
  origin = http.createServer((req, res) => {
    const u = new URL(req.url!, 'http://x');
    let bytes = 0;
    req.on('data', (c: Buffer) => (bytes += c.length));
    req.on('end', () => {
      const n = Number(u.searchParams.get('n') ?? 0);
      if (u.pathname === '/length') return sendBulk(res, Buffer.alloc(Math.min(n, 65536) || 1, 7), n);
      if (u.pathname === '/chunked') {
        // No length: Node frames it chunked; written in uneven pieces over several ticks.
        res.writeHead(200, { 'x-key': String(req.headers['x-api-key']) });
        let left = n;
        const step = () => {
          if (left <= 0) return res.end();
          const k = Math.min(left, 1 + ((left * 7919) % 40000));
          left -= k;
          res.write(Buffer.alloc(k, 3));
          setImmediate(step);
        };
        return step();
      }
      if (u.pathname === '/close') {
        res.writeHead(200, { connection: 'close' });
        return res.end(Buffer.alloc(n, 5));
      }
      const rnd = RANDOM[u.searchParams.get('r') ?? ''];
      if (u.pathname === '/random' && rnd) return sendBody(res, rnd, 1 + ((rnd.length * 31) % 50_000));
      if (u.pathname === '/random-chunked' && rnd) {
        res.writeHead(200); // no length: chunked, in uneven pieces
        let at = 0;
        const step = () => {
          if (at >= rnd.length) return res.end();
          const k = Math.min(rnd.length - at, 1 + ((at * 7919) % 70_000));
          res.write(rnd.subarray(at, (at += k)));
          setImmediate(step);
        };
        return step();
      }
      if (u.pathname === '/echo') return res.end(`${req.headers['transfer-encoding'] ?? 'length'} ${bytes}`);
      res.writeHead(200, { 'content-length': 1000 }).end(req.method === 'HEAD' ? undefined : Buffer.alloc(1000));
    });
  });
  // An interim 100 Continue before the answer, when the request asks for it.
  origin.on('checkContinue', (req, res) => {
    res.writeContinue();
    origin.emit('request', req, res);
  });
  origin.on('connection', () => connections++);
  originPort = await listen(origin);
  egress = await startTestEgress('h1', BOX, {
    policyFor: async () => ({ id: 'hp_h1', name: 'h1', document }),
    secretFor: async (_b, n) => secrets[n],
    resolve: () => ({ host: '127.0.0.1', port: originPort, internal: true }),
  });
});

afterAll(async () => {
  await egress.close();
  origin.close();
});

beforeEach(() => {
  document = { [HOST]: { rules: [] } };
  egress.deps.agents!.h1.close(); // each test counts its own upstream connections
  connections = 0;
});

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

/** A request through the proxy in absolute form, as a box sends plain HTTP. */
function call(method: string, path: string, o: { body?: Buffer[]; headers?: http.OutgoingHttpHeaders } = {}) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; bytes: number; text: string }>((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port: egress.port, method, path: `http://${HOST}:8080${path}`, headers: { host: `${HOST}:8080`, ...o.headers }, agent },
      (res) => {
        let bytes = 0;
        let text = '';
        res.on('data', (c: Buffer) => {
          bytes += c.length;
          if (text.length < 200) text += c.toString('latin1');
        });
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, bytes, text }));
      },
    );
    req.on('error', reject);
    for (const b of o.body ?? []) req.write(b);
    req.end();
  });
}

const lastEntries = async (n: number) => {
  await new Promise((r) => setTimeout(r, 80)); // entries are written when the box's answer finishes
  return (await egress.repo.page(BOX, n, 0)).rows;
};

describe('HTTP/1.1 upstream client of the proxy', () => {
  it('ends a Content-Length body at its length, logs its bytes, and reuses the kept-alive connection', async () => {
    const a = await call('GET', '/length?n=3014656');
    const b = await call('GET', '/length?n=12345');
    expect([a.status, a.bytes, a.headers['content-length']]).toEqual([200, 3_014_656, '3014656']);
    expect(b.bytes).toBe(12345);
    expect(connections).toBe(1);
    const [eb, ea] = await lastEntries(2);
    expect([ea!.path, ea!.status, ea!.bytes_in, eb!.bytes_in]).toEqual(['/length', 200, 3_014_656, 12345]);
  });

  it('decodes a chunked answer written in uneven pieces, with the secret injected, and keeps the connection', async () => {
    document = { [HOST]: { rules: [{ request: { set: { headers: { 'x-api-key': '${secrets.K}' } } } }] } };
    const a = await call('GET', '/chunked?n=1000003');
    const b = await call('GET', '/chunked?n=1');
    expect([a.status, a.bytes, a.headers['x-key'], b.bytes]).toEqual([200, 1_000_003, 'sk-h1-secret', 1]);
    expect(connections).toBe(1);
    const [, ea] = await lastEntries(2);
    expect(ea!.bytes_in).toBe(1_000_003);
  });

  it('an answer ended by closing the connection is relayed whole; the next request opens a new connection', async () => {
    const a = await call('GET', '/close?n=70000');
    const b = await call('GET', '/length?n=10');
    expect([a.bytes, b.bytes]).toEqual([70000, 10]);
    expect(connections).toBe(2);
  });

  it('HEAD gets the head only (its Content-Length describes a body never sent), then the connection serves again', async () => {
    const h = await call('HEAD', '/head');
    const g = await call('GET', '/head');
    expect([h.status, h.headers['content-length'], h.bytes, g.bytes]).toEqual([200, '1000', 0, 1000]);
    expect(connections).toBe(1);
  });

  it('request bodies go up by length or chunked (logged as bytes out); an interim 100 Continue is skipped', async () => {
    const big = Buffer.alloc(2_500_000, 1);
    const byLength = await call('POST', '/echo', { body: [big], headers: { 'content-length': big.length } });
    const chunked = await call('POST', '/echo', { body: [big.subarray(0, 1000), big.subarray(0, 777)] });
    const cont = await call('PUT', '/echo', { body: [Buffer.from('abc')], headers: { 'content-length': 3, expect: '100-continue' } });
    expect([byLength.text, chunked.text, cont.status, cont.text]).toEqual(['length 2500000', 'chunked 1777', 200, 'length 3']);
    const [ec, eb, ea] = await lastEntries(3);
    expect([ea!.bytes_out, eb!.bytes_out, ec!.bytes_out]).toEqual([2_500_000, 1777, 3]);
  });

  it('a header value with a line break (a secret holding CR/LF) is refused, never written upstream', async () => {
    secrets.BAD = 'x\r\nx-evil: 1';
    document = { [HOST]: { rules: [{ request: { set: { headers: { 'x-api-key': '${secrets.BAD}' } } } }] } };
    const r = await call('GET', '/length?n=5');
    expect(r.status).toBe(502);
    expect(connections).toBe(0);
  });

  it('relays concurrent downloads byte for byte, to fast and slow readers, by length and chunked', async () => {
    /** Downloads `path` on its own connection; `slow` pauses the box's side after each piece (the proxy's reads back up). */
    const fetchHash = (path: string, slow: boolean) =>
      new Promise<{ status: number; bytes: number; sha: string }>((resolve, reject) => {
        const h = createHash('sha256');
        let bytes = 0;
        http
          .get({ host: '127.0.0.1', port: egress.port, path: `http://${HOST}:8080${path}`, headers: { host: `${HOST}:8080` }, agent: false }, (res) => {
            res.on('data', (c: Buffer) => {
              bytes += c.length;
              h.update(c);
              if (slow && bytes % 5 === 0) {
                res.pause();
                setTimeout(() => res.resume(), 1);
              }
            });
            res.on('end', () => resolve({ status: res.statusCode!, bytes, sha: h.digest('hex') }));
          })
          .on('error', reject);
      });
    const runs = await Promise.all([
      fetchHash('/random?r=a', false),
      fetchHash('/random?r=b', true),
      fetchHash('/random-chunked?r=c', false),
      fetchHash('/random-chunked?r=a', true),
    ]);
    expect(runs).toEqual(['a', 'b', 'c', 'a'].map((k) => ({ status: 200, bytes: RANDOM[k]!.length, sha: sha(RANDOM[k]!) })));
  });

  it('the chunked decoder yields the same bytes however the input is split', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ minLength: 1, maxLength: 300 }), { maxLength: 8 }), fc.array(fc.nat(2000), { maxLength: 12 }), (chunks, cuts) => {
        const wire = Buffer.concat([
          ...chunks.flatMap((c) => [Buffer.from(`${c.length.toString(16)};ext=1\r\n`), Buffer.from(c), Buffer.from('\r\n')]),
          Buffer.from('0\r\nx-trailer: t\r\n\r\nNEXT'),
        ]);
        const out: Buffer[] = [];
        const d = new ChunkedDecoder((b) => out.push(Buffer.from(b)));
        const points = [...new Set(cuts.map((c) => c % (wire.length + 1)))].sort((x, y) => x - y);
        let at = 0;
        let rest = -1;
        for (const end of [...points, wire.length]) {
          if (end <= at || rest >= 0) continue;
          const used = d.push(wire.subarray(at, end));
          if (used >= 0) rest = at + used;
          at = end;
        }
        expect(Buffer.concat(out)).toEqual(Buffer.concat(chunks.map((c) => Buffer.from(c))));
        expect(wire.subarray(rest).toString()).toBe('NEXT');
      }),
    );
  });
});
