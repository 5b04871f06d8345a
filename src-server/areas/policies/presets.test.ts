import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { policyDocumentProblem } from '@box/contract/policies';
import { errorOf, startTestService, type TestService } from '../../test-support/harness.js';
import { evaluate } from './evaluate.js';
import { POLICY_PRESETS } from './presets.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({});
});
afterAll(() => svc.close());

describe('policy presets', () => {
  it('every preset document is valid and does what its name says', () => {
    for (const p of POLICY_PRESETS) expect(policyDocumentProblem(p.document), p.id).toBeNull();
    const doc = (id: string) => POLICY_PRESETS.find((p) => p.id === id)!.document;
    const v = (id: string, host: string, method = 'GET', path = '/', port = 443) => evaluate(doc(id), { host, method, path, port, gatewayPort: 8788 }).verdict;
    expect(v('deny-all', 'example.com')).toBe('deny');
    expect(v('allow-all-logged', 'anything.example', 'POST')).toBe('allow');
    expect(v('package-registries', 'registry.npmjs.org')).toBe('allow');
    expect(v('package-registries', 'registry.npmjs.org', 'PUT', '/my-package')).toBe('deny');
    expect(v('package-registries', 'files.pythonhosted.org', 'HEAD')).toBe('allow');
    expect(v('package-registries', 'github.com', 'POST', '/o/r.git/git-upload-pack')).toBe('allow');
    expect(v('package-registries', 'raw.githubusercontent.com')).toBe('allow');
    expect(v('package-registries', 'evil.example')).toBe('deny');
    expect(v('local-gateway-only', 'host.box.internal', 'POST', '/v1/responses', 8788)).toBe('allow');
    expect(v('local-gateway-only', 'host.box.internal', 'GET', '/admin', 8788)).toBe('deny');
    // The port too: another service on the host's loopback, same host name and path, is refused.
    expect(v('local-gateway-only', 'host.box.internal', 'POST', '/v1/responses', 5432)).toBe('deny');
    expect(v('local-gateway-only', 'host.box.internal', 'POST', '/v1/responses', 80)).toBe('deny');
    expect(evaluate(doc('local-gateway-only'), { host: 'host.box.internal', method: 'GET', path: '/v1/models', port: 8788 }).verdict).toBe('deny'); // no gateway known
    expect(v('local-gateway-only', 'api.openai.com', 'POST', '/v1/responses')).toBe('deny');
  });

  it('GET /v1/http-policies/presets lists them; creating from one copies its document', async () => {
    const list = await (await svc.api('/v1/http-policies/presets')).json();
    expect(list.data.map((p: { id: string }) => p.id)).toEqual(['deny-all', 'allow-all-logged', 'package-registries', 'local-gateway-only']);
    const res = await svc.api('/v1/http-policies', { method: 'POST', json: { preset: 'package-registries' } });
    expect(res.status).toBe(200);
    const p = await res.json();
    expect(p.name).toBe('Package registries');
    expect(p.document).toEqual(POLICY_PRESETS[2]!.document);
    const named = await (await svc.api('/v1/http-policies', { method: 'POST', json: { preset: 'deny-all', name: 'locked' } })).json();
    expect([named.name, named.document]).toEqual(['locked', {}]);
  });

  it('an unknown preset, or both/neither of preset and document, is a 400 naming the field', async () => {
    const bad = async (json: unknown, param: string) => {
      const res = await svc.api('/v1/http-policies', { method: 'POST', json });
      expect(res.status).toBe(400);
      expect((await errorOf(res)).param).toBe(param);
    };
    await bad({ preset: 'nope' }, 'preset');
    await bad({ name: 'x', preset: 'deny-all', document: {} }, 'document');
    await bad({ name: 'x' }, 'document');
    await bad({ document: {} }, 'name');
  });
});
