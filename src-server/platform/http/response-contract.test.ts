import express from 'express';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ROUTES } from '@box/contract/routes';
import { FakeRuntime } from '../../test-support/fake-runtime.js';
import { startTestService, type TestService } from '../../test-support/harness.js';
import { errorMiddleware } from './error-handler.js';
import { RouteRegistry } from './registry.js';
import { responseViolations } from './response-check.js';
import type { RouteSpec } from './route.js';

/**
 * The shared contract (issue 13): every route of the real service declares its answer
 * (a JSON schema or a stream kind) through contract/routes.ts, the table clients type
 * against matches the server's request schemas, and the response check really refuses a
 * wrong answer (so every route test that passes has validated its answers).
 */
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ runtime: (d) => new FakeRuntime(d) });
});
afterAll(() => svc?.close());

const keyOf = (s: RouteSpec) => `${s.method.toUpperCase()} ${s.path}`;
const jsonSchema = (s: z.ZodType | undefined) => (s ? JSON.stringify(z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' })) : undefined);

describe('every route declares its answer', () => {
  it('no registered route lacks a response schema or a response kind', () => {
    expect(svc.routes.length).toBeGreaterThan(100);
    const lacking = svc.routes.filter((s) => !s.response && !s.responseKind).map(keyOf);
    expect(lacking).toEqual([]);
  });

  it('contract/routes.ts lists exactly the registered routes', () => {
    const registered = new Set(svc.routes.map(keyOf));
    expect(svc.routes.map(keyOf).filter((k) => !(k in ROUTES))).toEqual([]);
    expect(Object.keys(ROUTES).filter((k) => !registered.has(k))).toEqual([]);
  });

  it("the contract's request schemas are the ones the server validates with", () => {
    const table = ROUTES as Record<string, { body?: z.ZodType; query?: z.ZodType }>;
    const drift = svc.routes.flatMap((s) => {
      const c = table[keyOf(s)]!;
      const out: string[] = [];
      if (c.body && jsonSchema(c.body) !== jsonSchema(s.body)) out.push(`${keyOf(s)} body`);
      if (c.query && jsonSchema(c.query) !== jsonSchema(s.query)) out.push(`${keyOf(s)} query`);
      if (!c.body && s.body && !s.rawBody && s.method !== 'get') out.push(`${keyOf(s)} body missing from the contract`);
      return out;
    });
    // reboot/upgrade take an empty optional body the contract does not need to describe.
    expect(drift.filter((d) => !/\/(reboot|upgrade) body missing/.test(d))).toEqual([]);
  });

  it('the OpenAPI document carries every answer', async () => {
    type Op = { responses: { '200': { content?: object }; '101'?: object }; 'x-websocket'?: object };
    const doc = (await (await svc.api('/v1/openapi.json')).json()) as { paths: Record<string, Record<string, Op>> };
    const bare = Object.entries(doc.paths).flatMap(([p, ops]) =>
      Object.entries(ops)
        // a WebSocket endpoint answers 101, its messages under x-websocket
        .filter(([, op]) => (op.responses['101'] ? !op['x-websocket'] : !op.responses['200'].content || !Object.keys(op.responses['200'].content).length))
        .map(([m]) => `${m} ${p}`),
    );
    expect(bare).toEqual([]);
    expect(Object.keys(doc.paths['/v1/boxes/{box_id}/exec']!.post!.responses['200'].content!)).toEqual(['application/x-ndjson']);
    expect(doc.paths['/v1/boxes/{box_id}']!.get!.responses['200'].content).toMatchObject({
      'application/json': { schema: { required: expect.arrayContaining(['box_id', 'status']) } },
    });
  });
});

describe('the response check can fail', () => {
  let bad: { url: string; server: http.Server };
  beforeAll(async () => {
    // Routes answering wrong shapes, run through the real pipeline on the test service's context.
    const r = new RouteRegistry();
    const whoami = { org_id: 'org_1', org_name: 'o', key_id: 'key_1', key_scope: 'organization', user_id: null };
    r.add({
      method: 'get',
      path: '/v1/whoami',
      area: 'common',
      tag: 't',
      summary: 'missing field',
      auth: 'none',
      handler: () => ({ ...whoami, org_name: undefined }),
    });
    r.add({
      method: 'get',
      path: '/v1/organization',
      area: 'common',
      tag: 't',
      summary: 'wrong type',
      auth: 'none',
      handler: () => ({ org_id: 'o', name: 'n', credits_usd_nanos: '12', billing_url: 'u' }),
    });
    r.add({
      method: 'get',
      path: '/v1/ssh/ca',
      area: 'common',
      tag: 't',
      summary: 'extra field',
      auth: 'none',
      handler: () => ({ public_key: 'k', private_key: 'leak' }),
    });
    r.add({ method: 'get', path: '/v1/not-in-contract', area: 'common', tag: 't', summary: 'undeclared', auth: 'none', handler: () => ({ ok: true }) });
    r.add({ method: 'get', path: '/v1/apps', area: 'common', tag: 't', summary: 'fine', auth: 'none', handler: () => ({ data: [] }) });
    const app = express();
    r.mount(app, svc.ctx, ['common']);
    app.use(errorMiddleware(svc.ctx));
    const server = http.createServer(app);
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    bad = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
  });
  afterAll(() => new Promise<void>((ok) => bad.server.close(() => ok())));

  const errorOf = async (p: string) => {
    const res = await fetch(`${bad.url}${p}`);
    return { status: res.status, error: ((await res.json()) as { error: { message: string; param: string | null; code: string } }).error };
  };

  it('a missing field answers 500 naming the route and the field', async () => {
    const { status, error } = await errorOf('/v1/whoami');
    expect(status).toBe(500);
    expect(error.code).toBe('response_contract_violation');
    expect(error.param).toBe('org_name');
    expect(error.message).toContain('GET /v1/whoami');
  });

  it('a mistyped field is caught', async () => {
    const { status, error } = await errorOf('/v1/organization');
    expect(status).toBe(500);
    expect(error.param).toBe('credits_usd_nanos');
  });

  it('a field the schema does not declare is caught (exact shape, nothing leaks unnoticed)', async () => {
    const { status, error } = await errorOf('/v1/ssh/ca');
    expect(status).toBe(500);
    expect(error.param).toBe('private_key');
  });

  it('a JSON answer of a route outside the contract is caught', async () => {
    const { status, error } = await errorOf('/v1/not-in-contract');
    expect(status).toBe(500);
    expect(error.message).toContain('declares no response schema');
  });

  it('a matching answer passes, and the harness fails the file on close when any did not', async () => {
    expect((await fetch(`${bad.url}/v1/apps`)).status).toBe(200);
    expect(responseViolations(svc.ctx)).toHaveLength(4);
    await expect(svc.close()).rejects.toThrow(/response contract violations:[\s\S]*GET \/v1\/whoami/);
    svc = undefined as unknown as TestService; // closed above
  });
});
