import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeRuntime } from '../../test-support/fake-runtime.js';
import { startTestService, type TestService } from '../../test-support/harness.js';
import { plainFront } from './plain-front.js';

// The inference endpoints and exec are served by node:http ahead of Express (plain-front.ts). Here the
// front runs on its own server whose Express fallback only counts: every answer below comes
// from the front itself, through the guard, pipeline and error rendering Express's routes share.
let svc: TestService;
let server: http.Server;
let port: number;
let fellThrough: string[] = [];

beforeAll(async () => {
  svc = await startTestService({ runtime: (d) => new FakeRuntime(d) });
  const fallback: http.RequestListener = (req, res) => {
    fellThrough.push(`${req.method} ${req.url}`);
    req.resume();
    req.on('end', () => res.writeHead(418, { 'content-length': '0' }).end());
  };
  server = http.createServer(plainFront([...svc.routes], svc.ctx, ['box', 'inference', 'common'], fallback));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await svc.close();
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
  text: string;
  /** ms after the request each socket read of the answer came (the head's read included) */
  reads: number[];
}

/** A raw request (fetch cannot set Host), authenticated unless `key` is null. */
function send(method: string, path: string, body?: unknown, headers: Record<string, string> = {}, key: string | null = svc.key): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const h: Record<string, string> = { host: `127.0.0.1:${port}`, ...headers };
    if (key) h.authorization = `Bearer ${key}`;
    if (payload !== undefined) h['content-type'] ??= 'application/json';
    const t0 = performance.now();
    const reads: number[] = [];
    const req = http.request({ host: '127.0.0.1', port, method, path, headers: h, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const json = text && !res.headers['content-type']?.startsWith('application/x-ndjson');
        resolve({ status: res.statusCode!, headers: res.headers, body: json ? JSON.parse(text) : undefined, text, reads });
      });
    });
    req.on('socket', (sock) => sock.on('data', () => reads.push(performance.now() - t0)));
    req.on('error', reject);
    req.end(payload);
  });
}

const chat = { model: 'box/echo', messages: [{ role: 'user', content: 'hello there' }] };
const envelope = (a: Answer) => {
  expect(Object.keys(a.body.error).sort()).toEqual(expect.arrayContaining(['code', 'message', 'param', 'type']));
  return a.body.error as { message: string; type: string; param: string | null; code: unknown };
};

describe('the node:http front of the inference endpoints', () => {
  it('answers a chat completion, a response, a message and the model list itself', async () => {
    fellThrough = [];
    const c = await send('POST', '/v1/chat/completions', chat);
    expect(c.status).toBe(200);
    expect(c.body.object).toBe('chat.completion');
    expect(c.headers['content-type']).toBe('application/json; charset=utf-8');
    expect((await send('POST', '/v1/responses', { model: 'box/echo', input: 'hi' })).body.object).toBe('response');
    expect((await send('POST', '/v1/messages', { model: 'box/echo', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] })).body.type).toBe('message');
    const models = await send('GET', '/v1/models');
    expect(models.body.data.map((m: { id: string }) => m.id)).toContain('box/echo');
    expect(fellThrough).toEqual([]);
  });

  it('refuses a cross-origin request by Origin or Sec-Fetch-Site (403 cross_origin_refused)', async () => {
    const a = await send('POST', '/v1/chat/completions', chat, { origin: 'http://evil.example' });
    expect(a.status).toBe(403);
    expect(envelope(a).code).toBe('cross_origin_refused');
    const b = await send('POST', '/v1/responses', { model: 'box/echo', input: 'hi' }, { 'sec-fetch-site': 'cross-site' });
    expect(b.status).toBe(403);
    expect(envelope(b).code).toBe('cross_origin_refused');
    expect(fellThrough).toEqual([]);
  });

  it('refuses a DNS-rebinding Host (403 host_not_allowed) before looking at the key', async () => {
    const a = await send('POST', '/v1/chat/completions', chat, { host: `rebind.attacker.example:${port}` }, null);
    expect(a.status).toBe(403);
    expect(envelope(a)).toMatchObject({ type: 'permission_error', code: 'host_not_allowed' });
  });

  it('refuses a missing or wrong key (401 invalid_api_key)', async () => {
    const a = await send('POST', '/v1/chat/completions', chat, {}, null);
    expect(a.status).toBe(401);
    expect(envelope(a)).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
    const b = await send('GET', '/v1/models', undefined, {}, 'bxk_not_a_key_000000000000000000000000000');
    expect(b.status).toBe(401);
  });

  it('answers a bad body with the envelope naming the field, and bad JSON as invalid_json', async () => {
    const a = await send('POST', '/v1/chat/completions', { model: 'box/echo', messages: 'not a list' });
    expect(a.status).toBe(400);
    expect(envelope(a)).toMatchObject({ type: 'invalid_request_error', param: 'messages' });
    const b = await send('POST', '/v1/responses', { input: 'hi' });
    expect(envelope(b)).toMatchObject({ param: 'model', message: 'Missing required field model.' });
    const c = await send('POST', '/v1/chat/completions', '{"model":');
    expect(c.status).toBe(400);
    expect(envelope(c).code).toBe('invalid_json');
  });

  it('gives Messages errors the Anthropic shape (top-level type "error") inside the same envelope', async () => {
    const a = await send('POST', '/v1/messages', { model: 'box/echo', messages: [] });
    expect(a.status).toBe(400);
    expect(a.body.type).toBe('error');
    expect(envelope(a)).toMatchObject({ type: 'invalid_request_error', param: 'max_tokens' });
  });

  it('keeps idempotency: the same key replays the answer, another body under it is a 409', async () => {
    const h = { 'idempotency-key': `plain-${Date.now()}` };
    const first = await send('POST', '/v1/chat/completions', chat, h);
    const again = await send('POST', '/v1/chat/completions', chat, h);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    const other = await send('POST', '/v1/chat/completions', { ...chat, messages: [{ role: 'user', content: 'other' }] }, h);
    expect(other.status).toBe(409);
    expect(envelope(other).code).toBe('idempotency_key_reused');
  });

  it('refuses an oversized body with 413 before reading it', async () => {
    const a = await send('POST', '/v1/chat/completions', undefined, { 'content-length': String(64 * 1024 * 1024) });
    expect(a.status).toBe(413);
  });

  it('leaves everything else to Express: a query string, a trailing slash, other methods and routes', async () => {
    fellThrough = [];
    await send('POST', '/v1/chat/completions?beta=true', chat);
    await send('POST', '/v1/responses/', { model: 'box/echo', input: 'hi' });
    await send('HEAD', '/v1/models');
    await send('GET', '/v1/boxes');
    expect(fellThrough).toEqual(['POST /v1/chat/completions?beta=true', 'POST /v1/responses/', 'HEAD /v1/models', 'GET /v1/boxes']);
  });
});

describe('the node:http front of POST /v1/boxes/:box_id/exec', () => {
  let boxId: string;
  beforeAll(async () => {
    // set up through the real service (this server's Express fallback only counts)
    const appId = (await (await svc.api('/v1/apps/find', { method: 'POST', json: { name: 'front', mint_if_missing: true } })).json()).id;
    boxId = (await (await svc.api('/v1/boxes', { method: 'POST', json: { app_id: appId, name: 'front' } })).json()).box_id;
  });
  const events = (a: Answer) =>
    a.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; data?: string; status?: string; exec_id?: string });
  const stdout = (a: Answer) =>
    events(a)
      .filter((e) => e.type === 'stdout')
      .map((e) => Buffer.from(e.data!, 'base64').toString())
      .join('');

  it('streams a command (started, output, exit) with the same headers, itself', async () => {
    fellThrough = [];
    const a = await send('POST', `/v1/boxes/${boxId}/exec`, { command: 'echo front' });
    expect(a.status).toBe(200);
    expect(a.headers['content-type']).toBe('application/x-ndjson');
    expect(a.headers['cache-control']).toBe('no-store');
    const ev = events(a);
    expect(ev[0]).toEqual({ type: 'started', exec_id: a.headers['x-box-exec-id'] });
    expect(stdout(a)).toBe('front\n');
    expect(ev.at(-1)).toMatchObject({ type: 'exit', status: 'succeeded', return_code: 0 });
    const bg = await send('POST', `/v1/boxes/${boxId}/exec`, { command: 'true', background: true });
    expect(events(bg)).toEqual([{ type: 'started', exec_id: bg.headers['x-box-exec-id'] }]);
    expect(fellThrough).toEqual([]);
  });

  it('answers a short command in one write, and says "started" of a longer one before its end', async () => {
    const one = [];
    for (let i = 0; i < 5; i++) one.push((await send('POST', `/v1/boxes/${boxId}/exec`, { command: 'sleep 0.003' })).reads.length);
    // "started" waits (START_HOLD_MS) for the exit that follows a few ms later: one read, not two
    expect(one.filter((n) => n === 1).length).toBeGreaterThanOrEqual(1);
    const long = await send('POST', `/v1/boxes/${boxId}/exec`, { command: 'sleep 0.4' });
    expect(events(long).map((e) => e.type)).toEqual(['started', 'exit']);
    expect(long.reads.length).toBeGreaterThanOrEqual(2);
    expect(long.reads.at(-1)! - long.reads[0]!).toBeGreaterThan(250);
  });

  it('replays an exec that already ended to a repeat of its idempotency_key', async () => {
    const body = { command: 'echo once', idempotency_key: `front-${Date.now()}` };
    const first = await send('POST', `/v1/boxes/${boxId}/exec`, body);
    const again = await send('POST', `/v1/boxes/${boxId}/exec`, body);
    expect(again.status).toBe(200);
    expect(again.headers['x-box-exec-id']).toBe(first.headers['x-box-exec-id']);
    expect(stdout(again)).toBe('once\n');
    expect(events(again).at(-1)).toMatchObject({ type: 'exit', status: 'succeeded' });
  });

  it('answers a bad body, an unknown box and a malformed box id in the envelope naming the field', async () => {
    fellThrough = [];
    const a = await send('POST', `/v1/boxes/${boxId}/exec`, { command: 42 });
    expect(a.status).toBe(400);
    expect(envelope(a)).toMatchObject({ type: 'invalid_request_error', param: 'command' });
    const b = await send('POST', `/v1/boxes/${boxId}/exec`, { command: 'true', colour: 'red' });
    expect(b.status).toBe(400);
    expect(envelope(b).param).toBe('colour');
    const c = await send('POST', '/v1/boxes/box_00000000-0000-0000-0000-000000000000/exec', { command: 'true' });
    expect(c.status).toBe(404);
    expect(envelope(c)).toMatchObject({ type: 'not_found_error', param: 'box_id' });
    const d = await send('POST', '/v1/boxes/not-a-box/exec', { command: 'true' });
    expect(d.status).toBe(400);
    expect(envelope(d).param).toBe('box_id');
    const e = await send('POST', `/v1/boxes/${boxId}/exec`, '{"command":');
    expect(envelope(e).code).toBe('invalid_json');
    expect(fellThrough).toEqual([]);
  });

  it('refuses a missing key, a cross-origin request and a rebinding Host before running anything', async () => {
    fellThrough = [];
    const a = await send('POST', `/v1/boxes/${boxId}/exec`, { command: 'touch /tmp/never' }, {}, null);
    expect(a.status).toBe(401);
    expect(envelope(a)).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
    const b = await send('POST', `/v1/boxes/${boxId}/exec`, { command: 'true' }, { origin: 'http://evil.example' });
    expect(envelope(b)).toMatchObject({ type: 'permission_error', code: 'cross_origin_refused' });
    const c = await send('POST', `/v1/boxes/${boxId}/exec`, { command: 'true' }, { 'sec-fetch-site': 'same-site' });
    expect(envelope(c).code).toBe('cross_origin_refused');
    const d = await send('POST', `/v1/boxes/${boxId}/exec`, { command: 'true' }, { host: `rebind.attacker.example:${port}` }, null);
    expect(envelope(d)).toMatchObject({ type: 'permission_error', code: 'host_not_allowed' });
    expect(fellThrough).toEqual([]);
  });

  it('leaves other shapes of the path to Express: query, trailing slash, casing, malformed escape, other methods', async () => {
    fellThrough = [];
    const paths = [`/v1/boxes/${boxId}/exec?x=1`, `/v1/boxes/${boxId}/exec/`, `/v1/boxes/${boxId}/EXEC`, '/v1/boxes/box_%E0%A4%A/exec', '/v1/boxes//exec'];
    for (const p of paths) await send('POST', p, { command: 'true' });
    await send('GET', `/v1/boxes/${boxId}/exec`);
    expect(fellThrough).toEqual([...paths.map((p) => `POST ${p}`), `GET /v1/boxes/${boxId}/exec`]);
  });
});
