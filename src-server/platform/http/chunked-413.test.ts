import http from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FakeRuntime } from '../../test-support/fake-runtime.js';
import { startTestService, type TestService } from '../../test-support/harness.js';

/** Issue 28: a body over the limit gets 413, chunked or not (a chunked one got a connection reset). */
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ runtime: (d) => new FakeRuntime(d) });
});
afterAll(() => svc.close());

function send(chunked: boolean): Promise<{ status: number; body: string } | { error: string }> {
  const total = 2 * 1024 * 1024;
  const u = new URL(`${svc.url}/v1/box-volumes`);
  return new Promise((resolve) => {
    const headers: Record<string, string | number> = { authorization: `Bearer ${svc.key}`, 'content-type': 'application/json' };
    if (!chunked) headers['content-length'] = total;
    const req = http.request(u, { method: 'POST', headers }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
      res.on('error', (e) => resolve({ error: e.message }));
    });
    req.on('error', (e) => resolve({ error: e.message }));
    let sent = 0;
    const piece = Buffer.alloc(64 * 1024, 0x20);
    const pump = () => {
      while (sent < total) {
        sent += piece.length;
        if (!req.write(piece)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}

it.each([true, false])('a 2 MiB body (chunked: %s) gets 413 in the error envelope', async (chunked) => {
  const r = await send(chunked);
  expect(r).toMatchObject({ status: 413 });
  expect(JSON.parse((r as { body: string }).body).error.code).toBe('request_too_large');
  // and the service goes on answering
  expect((await svc.api('/v1/box-volumes')).status).toBe(200);
});
