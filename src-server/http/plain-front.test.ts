import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../test-support/harness.js';
import { plainFront } from './plain-front.js';

// The inference endpoints are served by node:http ahead of Express (plain-front.ts). Here the
// front runs on its own server whose Express fallback only counts: every answer below comes
// from the front itself, through the guard, pipeline and error rendering Express's routes share.
let svc: TestService;
let server: http.Server;
let port: number;
let fellThrough: string[] = [];

beforeAll(async () => {
  svc = await startTestService();
  const fallback: http.RequestListener = (req, res) => {
    fellThrough.push(`${req.method} ${req.url}`);
    req.resume();
    req.on('end', () => res.writeHead(418, { 'content-length': '0' }).end());
  };
  server = http.createServer(plainFront([...svc.routes], svc.ctx, ['inference', 'common'], fallback));
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
}

/** A raw request (fetch cannot set Host), authenticated unless `key` is null. */
function send(method: string, path: string, body?: unknown, headers: Record<string, string> = {}, key: string | null = svc.key): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const h: Record<string, string> = { host: `127.0.0.1:${port}`, ...headers };
    if (key) h.authorization = `Bearer ${key}`;
    if (payload !== undefined) h['content-type'] ??= 'application/json';
    const req = http.request({ host: '127.0.0.1', port, method, path, headers: h, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : undefined });
      });
    });
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
