/**
 * The code routes' requests, refused before any box work: the spec's envelope naming the
 * field. (The runs themselves: daemon.test.ts on this machine, code.vm.test.ts in a box.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeRuntime } from '../../test-support/fake-runtime.js';
import { startTestService, type TestService } from '../../test-support/harness.js';

let svc: TestService;
let boxId: string;

beforeAll(async () => {
  svc = await startTestService({ runtime: (d) => new FakeRuntime(d) });
  const appId = (await (await svc.api('/v1/apps/find', { method: 'POST', json: { name: 'c', mint_if_missing: true } })).json()).id;
  boxId = (await (await svc.api('/v1/boxes', { method: 'POST', json: { app_id: appId, name: 'codebox' } })).json()).box_id;
});
afterAll(() => svc.close());

const refused = async (path: string, json: unknown, method = 'POST') => {
  const res = await svc.api(path, { method, json });
  return { status: res.status, error: ((await res.json()) as { error: { param: string | null; type: string; code: string | null } }).error };
};

describe('code interpreter requests', () => {
  it('refuses bad bodies naming the field', async () => {
    expect(await refused(`/v1/boxes/${boxId}/code/run`, {})).toMatchObject({ status: 400, error: { param: 'code' } });
    expect(await refused(`/v1/boxes/${boxId}/code/run`, { code: '1', language: 'ruby' })).toMatchObject({ status: 400, error: { param: 'language' } });
    expect(await refused(`/v1/boxes/${boxId}/code/run`, { code: '1', timeout: -1 })).toMatchObject({ status: 400, error: { param: 'timeout' } });
    expect(await refused(`/v1/boxes/${boxId}/code/run`, { code: '1', context_id: 'nope' })).toMatchObject({ status: 400, error: { param: 'context_id' } });
    expect(await refused(`/v1/boxes/${boxId}/code/run`, { code: '1', extra: true })).toMatchObject({ status: 400 });
    expect(await refused(`/v1/boxes/${boxId}/code/contexts`, { cwd: 'relative' })).toMatchObject({ status: 400, error: { param: 'cwd' } });
    expect(await refused(`/v1/boxes/${boxId}/code/contexts`, { env: { 'BAD-NAME': 'x' } })).toMatchObject({ status: 400 });
  });

  it('answers 404 for an unknown box, 409 for a box that is not running', async () => {
    const missing = 'box_00000000-0000-4000-8000-000000000000';
    expect((await refused(`/v1/boxes/${missing}/code/run`, { code: '1' })).status).toBe(404);
    expect((await svc.api(`/v1/boxes/${boxId}/pause`, { method: 'POST' })).status).toBe(200);
    expect((await refused(`/v1/boxes/${boxId}/code/run`, { code: '1' })).status).toBe(409);
  });

  it('lists the code routes in the OpenAPI document', async () => {
    const doc = (await (await svc.api('/v1/openapi.json')).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/v1/boxes/{box_id}/code/run', '/v1/boxes/{box_id}/code/contexts', '/v1/boxes/{box_id}/code/contexts/{context_id}/restart']),
    );
  });
});
