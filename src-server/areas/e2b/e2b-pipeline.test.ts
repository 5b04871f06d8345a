/**
 * E2B's API rides Box's one request pipeline (http/route.ts): billing, the per-organization
 * concurrency limit and idempotency apply to it as to every Box route, answered in E2B's
 * `{code, message}` wire format; its routes are in the OpenAPI document (tag e2b).
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimitError, Sandbox, SandboxError } from 'e2b';
import { FakeRuntime } from '../../test-support/fake-runtime.js';
import { holdRequests } from '../../test-support/hold-requests.js';
import { startTestService, type TestService } from '../../test-support/harness.js';

let svc: TestService;
let opts: { apiKey: string; apiUrl: string; sandboxUrl: string; retries: number };

beforeAll(async () => {
  svc = await startTestService({ dataDir: fs.mkdtempSync('/tmp/bxe2bp-'), runtime: (d) => new FakeRuntime(d), maxConcurrentPerOrg: 2 });
  opts = { apiKey: svc.key, apiUrl: `${svc.url}/e2b/api`, sandboxUrl: `${svc.url}/e2b/sandbox`, retries: 0 };
});
afterAll(async () => {
  await svc?.close();
});

const e2b = (path: string, init: RequestInit = {}) =>
  fetch(`${opts.apiUrl}${path}`, { ...init, headers: { 'X-API-Key': svc.key, 'Content-Type': 'application/json', ...init.headers } });

describe('E2B through the route pipeline', () => {
  it('answers 402 in E2B format when the organization has no credits', async () => {
    const sbx = await Sandbox.create(opts);
    expect((await svc.api('/v1/organization', { method: 'PATCH', json: { credits_usd_nanos: 0 } })).status).toBe(200);
    try {
      const res = await e2b('/v2/sandboxes', { method: 'POST', body: JSON.stringify({ templateID: 'base' }) });
      expect(res.status).toBe(402);
      expect(await res.json()).toEqual({ code: 402, message: expect.stringMatching(/no credits/) });
      const err = await Sandbox.create(opts).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SandboxError);
      expect((err as SandboxError & { statusCode?: number }).statusCode).toBe(402);
      // the sandbox URL (envd, the code interpreter) and the signed file URLs are refused too
      const health = await fetch(`${opts.sandboxUrl}/health`, { headers: { 'E2b-Sandbox-Id': sbx.sandboxId, 'X-Access-Token': accessToken(sbx) } });
      expect(health.status).toBe(402);
      expect(await health.json()).toEqual({ code: 402, message: expect.stringMatching(/no credits/) });
      await expect(sbx.commands.run('echo hi')).rejects.toThrow();
      expect((await fetch(await sbx.downloadUrl('/etc/hostname'))).status).toBe(402);
    } finally {
      expect((await svc.api('/v1/organization', { method: 'PATCH', json: { credits_usd_nanos: 1_000_000_000_000 } })).status).toBe(200);
    }
    expect((await sbx.commands.run('echo back')).stdout).toBe('back\n');
    await sbx.kill();
  });

  it("answers the concurrency limit's 429 in E2B format, with Retry-After", async () => {
    const sbx = await Sandbox.create(opts);
    const held = await holdRequests(svc, 2);
    try {
      const res = await e2b('/v2/sandboxes');
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(await res.json()).toEqual({ code: 429, message: expect.stringMatching(/Too many requests/) });
      await expect(Sandbox.list(opts).nextItems()).rejects.toBeInstanceOf(RateLimitError);
      const health = await fetch(`${opts.sandboxUrl}/health`, { headers: { 'E2b-Sandbox-Id': sbx.sandboxId, 'X-Access-Token': accessToken(sbx) } });
      expect(health.status).toBe(429);
      expect(health.headers.get('retry-after')).toBe('1');
      expect(await health.json()).toEqual({ code: 429, message: expect.stringMatching(/Too many requests/) });
    } finally {
      await held.release();
    }
    expect((await e2b('/v2/sandboxes')).status).toBe(200);
    expect((await sbx.commands.run('echo free')).stdout).toBe('free\n');
    await sbx.kill();
  });

  it('creates one sandbox per Idempotency-Key and replays its answer', async () => {
    const body = JSON.stringify({ templateID: 'base', metadata: { idem: 'once' } });
    const headers = { 'Idempotency-Key': 'e2b-create-1' };
    const first = await e2b('/v2/sandboxes', { method: 'POST', body, headers });
    expect(first.status).toBe(201);
    const a = (await first.json()) as { sandboxID: string; envdAccessToken: string };
    const again = await e2b('/v2/sandboxes', { method: 'POST', body, headers });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(a);
    const listed = await Sandbox.list({ ...opts, query: { metadata: { idem: 'once' } } }).nextItems();
    expect(listed.map((s) => s.sandboxId)).toEqual([a.sandboxID]);
    // the same key with another request is refused, in E2B's format
    const other = await e2b('/v2/sandboxes', { method: 'POST', body: JSON.stringify({ templateID: 'base' }), headers });
    expect(other.status).toBe(409);
    expect(await other.json()).toEqual({ code: 409, message: expect.stringMatching(/Idempotency-Key/) });
    expect((await e2b(`/sandboxes/${a.sandboxID}`, { method: 'DELETE' })).status).toBe(204);
  });

  it('lists its routes in the OpenAPI document, tagged e2b, with their error format', async () => {
    const doc = (await (await svc.api('/v1/openapi.json')).json()) as {
      paths: Record<string, Record<string, { tags: string[]; responses: Record<string, { content: Record<string, { schema: unknown }> }> }>>;
    };
    const op = doc.paths['/e2b/api/v2/sandboxes']!;
    expect(op.get!.tags).toEqual(['e2b']);
    expect(op.post!.tags).toEqual(['e2b']);
    expect(op.post!.responses.default!.content['application/json']!.schema).toEqual({ $ref: '#/components/schemas/E2BError' });
    expect(doc.paths['/e2b/api/sandboxes/{sandboxID}/fork']!.post!.tags).toEqual(['e2b']);
  });
});

const accessToken = (sbx: Sandbox) => (sbx as unknown as { envdAccessToken: string }).envdAccessToken;
