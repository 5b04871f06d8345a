import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../test-support/harness.js';
import { startFakeUpstream, type FakeUpstream } from './test-support/fake-upstreams.js';
import { waitFor } from './test-support/receiver.js';

let svc: TestService;
let up: FakeUpstream;
beforeAll(async () => {
  up = await startFakeUpstream('openai');
  svc = await startTestService({});
  await svc.api('/v1/engines', { method: 'POST', json: { name: 'oa', kind: 'openai', base_url: up.url } });
});
afterAll(async () => {
  await svc?.close();
  await up?.close();
});

it('finished requests are recorded as token usage and drawn from credits', async () => {
  const before = (await (await svc.api('/v1/organization')).json()).credits_usd_nanos;
  const res = await svc.api('/v1/chat/completions', { method: 'POST', json: { model: 'oa/m', messages: [{ role: 'user', content: 'a b c' }] } });
  expect(res.status).toBe(200);
  const tokens = await waitFor(
    async () => (await svc.api('/v1/usage/tokens')).json(),
    (t) => JSON.stringify(t).includes('oa/m'),
  );
  expect(JSON.stringify(tokens)).toMatch(/"input_tokens":7/);
  const after = (await (await svc.api('/v1/organization')).json()).credits_usd_nanos;
  expect(after).toBeLessThan(before);
});
