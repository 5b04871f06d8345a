import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, startTestService, type TestService } from '../../test-support/harness.js';
import { FakeRuntime } from '../../test-support/fake-runtime.js';
import { probeUpstream } from './engines/upstream/probe.js';
import { startFakeUpstream, type FakeUpstream } from './test-support/fake-upstreams.js';

// Issue 15: adding an upstream tests it first and names what is wrong, in the envelope;
// a stored upstream that breaks later shows its last error beside it.
let svc: TestService;
let good: FakeUpstream;
let servers: http.Server[] = [];
let refusedUrl: string;
const serve = async (handler: http.RequestListener) => {
  const s = http.createServer(handler);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  servers.push(s);
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
};

beforeAll(async () => {
  good = await startFakeUpstream('openai', { apiKey: 'sk-good' });
  svc = await startTestService({ runtime: (d) => new FakeRuntime(d) });
  // A port that was just free: nothing listens there.
  const tmp = http.createServer();
  await new Promise<void>((r) => tmp.listen(0, '127.0.0.1', r));
  refusedUrl = `http://127.0.0.1:${(tmp.address() as AddressInfo).port}/v1`;
  await new Promise((r) => tmp.close(r));
});
afterAll(async () => {
  await svc?.close();
  await good?.close();
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  servers = [];
});

const add = (json: Record<string, unknown>) => svc.api('/v1/engines', { method: 'POST', json: { kind: 'openai', ...json } });
const names = async () => ((await (await svc.api('/v1/engines')).json()).data as { name: string }[]).map((e) => e.name);

describe('POST /v1/engines tests the connection first', () => {
  it('connection refused: 400 naming base_url, nothing saved', async () => {
    const res = await add({ name: 'down', base_url: refusedUrl });
    expect(res.status).toBe(400);
    const e = await errorOf(res);
    expect(e).toMatchObject({ type: 'invalid_request_error', param: 'base_url', code: 'upstream_refused' });
    expect(e.message).toMatch(/Upstream "down" did not answer its model list: Nothing is listening at 127\.0\.0\.1:\d+ \(connection refused\)/);
    expect(await names()).not.toContain('down');
  });

  it('a refused key: 400 naming api_key, with the upstream words', async () => {
    const e = await errorOf(await add({ name: 'badkey', base_url: good.url, api_key: 'sk-wrong' }));
    expect(e).toMatchObject({ param: 'api_key', code: 'upstream_unauthorized' });
    expect(e.message).toContain('refused the API key (401: bad upstream key)');
    const none = await errorOf(await add({ name: 'nokey', base_url: good.url }));
    expect(none.message).toContain('needs an API key (401');
  });

  it('not an OpenAI API: an HTML page, a 404, a JSON without data', async () => {
    const html = await serve((_q, s) => s.writeHead(200, { 'content-type': 'text/html' }).end('<html>hello</html>'));
    const e1 = await errorOf(await add({ name: 'html', base_url: html }));
    expect(e1).toMatchObject({ param: 'base_url', code: 'upstream_not_compatible' });
    expect(e1.message).toContain('answered text/html that is not JSON: not an OpenAI model list');
    const nf = await serve((_q, s) => s.writeHead(404).end());
    expect((await errorOf(await add({ name: 'nf', base_url: nf }))).message).toContain(
      'answered 404: this is not an OpenAI-compatible API at this base URL. OpenAI-compatible base URLs usually end in /v1',
    );
    const odd = await serve((_q, s) => s.writeHead(200, { 'content-type': 'application/json' }).end('{"models":[]}'));
    expect((await errorOf(await add({ name: 'odd', kind: 'anthropic', base_url: odd }))).message).toContain(
      'JSON without a "data" list: not an Anthropic model list',
    );
  });

  it('TLS spoken to a plain-HTTP server fails as TLS', async () => {
    const e = await errorOf(await add({ name: 'tls', base_url: good.url.replace('http:', 'https:') }));
    expect(e).toMatchObject({ param: 'base_url', code: 'upstream_tls' });
    expect(e.message).toMatch(/TLS with 127\.0\.0\.1:\d+ failed/);
  });

  it('a server that never answers times out', async () => {
    const slow = await serve(() => {});
    const r = await probeUpstream('openai', slow, null, 300);
    expect(r).toEqual({
      ok: false,
      error: { code: 'upstream_timeout', param: 'base_url', message: expect.stringMatching(/^No answer from 127\.0\.0\.1:\d+ within 0\.3 s/) },
    });
  });

  it('a working upstream is saved, with no error', async () => {
    const res = await add({ name: 'good', base_url: good.url, api_key: 'sk-good' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ name: 'good', has_api_key: true, last_error: null });
    expect(await names()).toContain('good');
  });
});

describe('a stored upstream that breaks', () => {
  it('verify:false saves it untested; its model-list failure and a test show as last_error', async () => {
    expect((await add({ name: 'later', base_url: refusedUrl, verify: false })).status).toBe(200);
    await svc.api('/v1/models'); // the gateway reads every engine's model list
    const later = (
      (await (await svc.api('/v1/engines')).json()).data as { name: string; last_error: { code: string; message: string; at: string } | null }[]
    ).find((e) => e.name === 'later')!;
    expect(later.last_error).toMatchObject({ message: expect.stringContaining('unreachable') });
    // in the same words as "Test" gives (the UI shows whichever came last)
    expect(later.last_error!.message).toContain(`Nothing is listening at ${new URL(refusedUrl).host} (connection refused)`);
    const test = await (await svc.api('/v1/engines/later/test', { method: 'POST', json: {} })).json();
    expect(test).toMatchObject({
      name: 'later',
      ok: false,
      models: 0,
      error: { code: 'upstream_refused', message: expect.stringContaining('connection refused') },
    });
    const after = ((await (await svc.api('/v1/engines')).json()).data as { name: string; last_error: { code: string } | null }[]).find(
      (e) => e.name === 'later',
    )!;
    expect(after.last_error).toMatchObject({ code: 'upstream_refused' });
    expect(await (await svc.api('/v1/engines/good/test', { method: 'POST', json: {} })).json()).toMatchObject({ ok: true, models: 1, error: null });
    expect(await errorOf(await svc.api('/v1/engines/nothere/test', { method: 'POST', json: {} }))).toMatchObject({ param: 'name' });
  });
});
