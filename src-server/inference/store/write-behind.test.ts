import { afterAll, describe, expect, it, vi } from 'vitest';
import { startReceiver } from '../test-support/receiver.js';
import { startInferenceService } from '../test-support/service.js';
import type { TestService } from '../../test-support/harness.js';

// Finished synchronous requests are stored write-behind, up to 20 ms after their answer
// (store/write-behind.ts). Readers must never notice, and a normal stop loses nothing.
const services: TestService[] = [];
afterAll(async () => {
  for (const s of services) await s.close().catch(() => {});
});

const create = (svc: TestService, json: unknown) => svc.api('/v1/responses', { method: 'POST', json });

describe('write-behind store of finished requests', () => {
  it('a response and its webhook delivery are readable the moment the answer arrives', async () => {
    const svc = await startInferenceService();
    services.push(svc);
    const rx = await startReceiver(() => 200);
    try {
      const res = await create(svc, { model: 'box/echo', input: 'hello', metadata: { completion_webhook: rx.url } });
      expect(res.status).toBe(200);
      const { id } = await res.json();
      // No wait at all: the pending copy (GET) and settle-on-read (the delivery log, read from the database).
      const [got, log] = await Promise.all([svc.api(`/v1/responses/${id}`), svc.api(`/v1/responses/${id}/deliveries`)]);
      expect(got.status).toBe(200);
      expect((await got.json()).id).toBe(id);
      expect((await log.json()).url).toBe(rx.url);
    } finally {
      await rx.close();
    }
  });

  it('48 concurrent answers are all in the database after a normal stop and a restart', async () => {
    const svc = await startInferenceService();
    const ids = await Promise.all(
      Array.from({ length: 48 }, async (_, i) => (await (await create(svc, { model: 'box/echo', input: `n${i}` })).json()).id as string),
    );
    const { dataDir, key } = svc;
    await svc.close();
    const again = await startInferenceService({ dataDir, apiKey: key });
    services.push(again);
    const found = await Promise.all(ids.map(async (id) => (await again.api(`/v1/responses/${id}`)).status));
    expect(found).toEqual(ids.map(() => 200));
  });

  it('a lone request (nothing else in flight) is written right after its answer, not 20 ms later', async () => {
    const svc = await startInferenceService();
    services.push(svc);
    const writer = svc.ctx.services.inference.service.writer;
    const res = await create(svc, { model: 'box/echo', input: 'alone' });
    const { id } = await res.json();
    // By the time the client has read the answer, the writer's setImmediate has run.
    // (the write is in flight then: it is done well before the 20 ms batch timer would fire)
    await new Promise((r) => setImmediate(r));
    await vi.waitFor(() => expect(writer.get(id)).toBeUndefined(), { timeout: 15, interval: 1 });
    expect((await svc.ctx.services.inference.service.responses.get(id))?.id).toBe(id);
  });
});
