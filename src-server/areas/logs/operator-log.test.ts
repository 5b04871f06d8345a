import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FakeRuntime } from '../../test-support/fake-runtime.js';
import { startTestService, type TestService } from '../../test-support/harness.js';

/** Issue 28, operator visibility: logs/service.log exists from the start and records each box state change with its reason. */
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ runtime: (d) => new FakeRuntime(d) });
});
afterAll(() => svc.close());

it('service.log is there from the start and says what happened to each box', async () => {
  const file = path.join(svc.dataDir, 'logs', 'service.log');
  expect(fs.existsSync(file)).toBe(true);
  expect(fs.readFileSync(file, 'utf8')).toContain('service starting on');
  const app = (await (await svc.api('/v1/apps/find', { method: 'POST', json: { name: 'ops', mint_if_missing: true } })).json()).id;
  const box = await (await svc.api('/v1/boxes', { method: 'POST', json: { app_id: app, name: 'watched' } })).json();
  await svc.api(`/v1/boxes/${box.box_id}/terminate`, { method: 'POST' });
  const text = fs.readFileSync(file, 'utf8');
  expect(text).toContain(`box ${box.box_id} (watched): creating -> running`);
  expect(text).toContain(`box ${box.box_id} (watched): running -> terminating`);
  expect(text).toContain(`box ${box.box_id} (watched): terminating -> terminated`);
  expect(text).toContain('accelerator: none');
});
