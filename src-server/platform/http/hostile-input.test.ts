import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, startTestService, type TestService } from '../../test-support/harness.js';
import { MAX_JSON_DEPTH } from './json-body.js';

// Issue 14, items 1-3 and 8: what a hostile client sends to the request pipeline.
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.close());

describe('malformed percent-encoding in a path parameter', () => {
  it.each([
    ['GET', '/v1/box-volumes/vol_%E0%A4%A/directories', 'volume_id'],
    ['GET', '/v1/secrets/A%E0%A4%A', 'name'],
    ['GET', '/v1/http-policies/%ZZ', 'id'],
  ])('%s %s → 400 naming %s', async (method, path, param) => {
    const res = await svc.api(path, { method });
    expect(res.status).toBe(400);
    const e = await errorOf(res);
    expect(e).toMatchObject({ type: 'invalid_request_error', param, code: 'invalid_encoding' });
  });

  it('the keyless hook answers 400 without a key', async () => {
    const res = await fetch(`${svc.url}/v1/inbox/hooks/%ff%`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(400);
    expect((await errorOf(res)).param).toBe('inbox_id');
  });

  it('a keyed route still wants the key first', async () => {
    const res = await fetch(`${svc.url}/v1/secrets/A%E0%A4%A`);
    expect(res.status).toBe(401);
  });
});

describe('JSON nesting and prototype keys', () => {
  it(`a policy document nested 5,000 levels → 400 naming the field, not a stack overflow`, async () => {
    const body = `{"name":"deep","document":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`;
    const res = await svc.api('/v1/http-policies', { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    const e = await errorOf(res);
    expect(e.param).toBe('document');
    expect(e.code).toBe('json_too_deep');
    expect(e.message).toContain(String(MAX_JSON_DEPTH));
  });

  it('deep arrays are bounded the same way', async () => {
    const body = `{"name":${'['.repeat(100000)}${']'.repeat(100000)}}`;
    const res = await svc.api('/v1/box-volumes', { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect((await errorOf(res)).param).toBe('name');
  });

  it('nesting up to the bound is still parsed (reaches validation)', async () => {
    const body = `{"name":"ok","document":{"x.example":{"rules":[]}},"deep":${'['.repeat(MAX_JSON_DEPTH - 2)}${']'.repeat(MAX_JSON_DEPTH - 2)}}`;
    const res = await svc.api('/v1/http-policies', { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect((await errorOf(res)).param).toBe('deep'); // unknown field, not json_too_deep
  });

  it('a "__proto__" host pattern is refused, never stored as {}', async () => {
    const body = '{"name":"proto","document":{"__proto__":{"rules":[]}}}';
    const res = await svc.api('/v1/http-policies', { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    const e = await errorOf(res);
    expect(e.param).toBe('document.__proto__');
    const list = (await (await svc.api('/v1/http-policies')).json()) as { data: { name: string }[] };
    expect(list.data.map((p) => p.name)).not.toContain('proto');
  });

  it('a "__proto__" key anywhere in any body is refused by name; nothing reaches a prototype', async () => {
    const res = await svc.api('/v1/box-volumes', {
      method: 'POST',
      body: '{"name":"y","x":[{"__proto__":{"polluted":1}}]}',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect((await errorOf(res)).param).toBe('x[0].__proto__');
    const other = await svc.api('/v1/box-volumes', {
      method: 'POST',
      body: '{"name":"v","constructor":{"prototype":{"polluted":1}}}',
      headers: { 'content-type': 'application/json' },
    });
    expect(other.status).toBe(400);
    expect((await errorOf(other)).param).toBe('constructor'); // an unknown field, like any other
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('authentication comes first', () => {
  it('unknown routes answer 401 without a key, 404 with one', async () => {
    expect((await fetch(`${svc.url}/v1/no-such-thing`)).status).toBe(401);
    expect((await fetch(`${svc.url}/v1/box-volumes/x/y/z`, { method: 'POST' })).status).toBe(401);
    expect((await svc.api('/v1/no-such-thing')).status).toBe(404);
  });

  it('a wrong method answers 401 without a key, 405 with one', async () => {
    expect((await fetch(`${svc.url}/v1/box-volumes`, { method: 'PATCH' })).status).toBe(401);
    expect((await svc.api('/v1/box-volumes', { method: 'PATCH' })).status).toBe(405);
  });

  it('GET /v1/status gives the data dir to organization keys only', async () => {
    expect((await (await svc.api('/v1/status')).json()).data_dir).toBe(svc.dataDir);
    const created = await (await svc.api('/v1/api-keys', { method: 'POST', json: { name: 'dev', scope: 'user' } })).json();
    const res = await fetch(`${svc.url}/v1/status`, { headers: { authorization: `Bearer ${created.secret}` } });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.version).toBeTypeOf('string');
    expect(JSON.stringify(body)).not.toContain(svc.dataDir);
  });
});
