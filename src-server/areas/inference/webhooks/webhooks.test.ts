import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../../../test-support/harness.js';
import { startFakeUpstream, type FakeUpstream } from '../test-support/fake-upstreams.js';
import { startReceiver, waitFor } from '../test-support/receiver.js';
import { startInferenceService } from '../test-support/service.js';

const SCHEDULE = { roundDelaysMs: [150, 250], maxRounds: 3, attemptTimeoutMs: 400, roundBudgetMs: 2000 };
let up: FakeUpstream;
let svc: TestService;
let openai: OpenAI;

beforeAll(async () => {
  up = await startFakeUpstream('openai');
  svc = await startInferenceService({ tuning: { webhookSchedule: SCHEDULE } });
  await svc.api('/v1/engines', { method: 'POST', json: { name: 'oa', kind: 'openai', base_url: up.url } });
  openai = new OpenAI({ apiKey: svc.key, baseURL: `${svc.url}/v1`, maxRetries: 0 });
});
afterAll(async () => {
  await svc?.close();
  await up?.close();
});

const deliveries = async (s: TestService, id: string) => (await s.api(`/v1/responses/${id}/deliveries`)).json();
const create = (metadata: Record<string, string>, input = 'hi') => openai.responses.create({ model: 'oa/m', input, metadata });

describe('completion webhooks', () => {
  it('posts the GET body, with the token and a Standard Webhooks signature the openai SDK verifies', async () => {
    const rx = await startReceiver(() => 200);
    const r = await create({ completion_webhook: rx.url, webhook_token: 'tok-123' });
    await waitFor(
      () => rx.received.length,
      (n) => n === 1,
    );
    const got = rx.received[0]!;
    expect(got.headers.authorization).toBe('Bearer tok-123');
    expect(got.headers['content-type']).toBe('application/json');
    const body = JSON.parse(got.body);
    const viaGet = await (await svc.api(`/v1/responses/${r.id}`)).json();
    expect(body).toEqual(viaGet);
    expect(body).toMatchObject({ id: r.id, status: 'completed' });
    expect(JSON.stringify(body)).not.toContain('tok-123');

    const { webhook_secret } = await (await svc.api('/v1/webhook-secret')).json();
    const event = await openai.webhooks.unwrap(got.body, got.headers as Record<string, string>, webhook_secret);
    expect((event as unknown as { id: string }).id).toBe(r.id);
    const forged = openai.webhooks.unwrap(got.body.replace('completed', 'incomplete'), got.headers as Record<string, string>, webhook_secret);
    await expect(forged).rejects.toThrow();
    await expect(openai.webhooks.unwrap(got.body, got.headers as Record<string, string>, `whsec_${Buffer.alloc(32, 1).toString('base64')}`)).rejects.toThrow();

    const d = await waitFor(
      () => deliveries(svc, r.id),
      (v) => v.state === 'delivered',
    );
    expect(d.data).toEqual([{ round: 1, attempt: 1, at: expect.any(String), status_code: 200, latency_ms: expect.any(Number), error: null }]);
    await rx.close();
  });

  it('a failing receiver gets exactly 3 attempts a round, for at most maxRounds rounds', async () => {
    const rx = await startReceiver(() => 500);
    const r = await create({ completion_webhook: rx.url });
    const d = await waitFor(
      () => deliveries(svc, r.id),
      (v) => v.state === 'failed',
    );
    expect(d.rounds_done).toBe(3);
    expect(d.data.map((a: { round: number; attempt: number }) => `${a.round}.${a.attempt}`)).toEqual([
      '1.1',
      '1.2',
      '1.3',
      '2.1',
      '2.2',
      '2.3',
      '3.1',
      '3.2',
      '3.3',
    ]);
    expect(d.data.every((a: { status_code: number; error: string }) => a.status_code === 500 && a.error === 'HTTP 500')).toBe(true);
    const at = d.data.map((a: { at: string }) => Date.parse(a.at));
    expect(at[3] - at[2]).toBeGreaterThanOrEqual(140);
    expect(at[6] - at[5]).toBeGreaterThanOrEqual(240);
    await new Promise((res) => setTimeout(res, 600));
    expect(rx.received.length).toBe(9);
    await rx.close();
  });

  it('stops at the first 2xx, also mid-round; network errors count as failures', async () => {
    const rx = await startReceiver((n) => (n <= 4 ? 503 : 204));
    const r = await create({ completion_webhook: rx.url });
    const d = await waitFor(
      () => deliveries(svc, r.id),
      (v) => v.state === 'delivered',
    );
    expect(d.data.map((a: { round: number; attempt: number; status_code: number }) => `${a.round}.${a.attempt}:${a.status_code}`)).toEqual([
      '1.1:503',
      '1.2:503',
      '1.3:503',
      '2.1:503',
      '2.2:204',
    ]);
    await new Promise((res) => setTimeout(res, 500));
    expect(rx.received.length).toBe(5);
    const closedUrl = rx.url;
    await rx.close();
    const dead = await create({ completion_webhook: closedUrl });
    const failed = await waitFor(
      () => deliveries(svc, dead.id),
      (v) => v.data.length >= 1,
    );
    expect(failed.data[0]).toMatchObject({ status_code: null, error: expect.stringMatching(/ECONNREFUSED/) });
  });

  it('an attempt that hangs is cut by the attempt timeout', async () => {
    const rx = await startReceiver(() => 'hang');
    const r = await create({ completion_webhook: rx.url });
    const d = await waitFor(
      () => deliveries(svc, r.id),
      (v) => v.data.length >= 1,
    );
    expect(d.data[0]).toMatchObject({ status_code: null, error: 'timed out after 400 ms' });
    await rx.close();
  });

  it('chat completions and messages trigger it too, with the Responses-shaped body', async () => {
    const rx = await startReceiver(() => 200);
    const c = await openai.chat.completions.create({ model: 'oa/m', messages: [{ role: 'user', content: 'yo' }], metadata: { completion_webhook: rx.url } });
    const m = await (
      await svc.api('/v1/messages', {
        method: 'POST',
        json: { model: 'oa/m', max_tokens: 1, messages: [{ role: 'user', content: 'a b c' }], metadata: { completion_webhook: rx.url } },
      })
    ).json();
    await waitFor(
      () => rx.received.length,
      (n) => n === 2,
    );
    const bodies = rx.received.map((x) => JSON.parse(x.body));
    expect(bodies.find((b) => b.id === c.id)).toMatchObject({ object: 'response', status: 'completed' });
    expect(bodies.find((b) => b.id === m.id)).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
    await rx.close();
  });

  it('redeliver sends it again on request', async () => {
    const rx = await startReceiver(() => 200);
    const r = await create({ completion_webhook: rx.url });
    await waitFor(
      () => deliveries(svc, r.id),
      (v) => v.state === 'delivered',
    );
    const res = await svc.api(`/v1/responses/${r.id}/deliveries/redeliver`, { method: 'POST' });
    expect(res.status).toBe(200);
    await waitFor(
      () => rx.received.length,
      (n) => n === 2,
    );
    expect(rx.received[0]!.headers['webhook-id']).toBe(rx.received[1]!.headers['webhook-id']);
    const none = await create({});
    expect((await svc.api(`/v1/responses/${none.id}/deliveries/redeliver`, { method: 'POST' })).status).toBe(409);
    await rx.close();
  });
});

describe('persistence across restarts', () => {
  it('pending rounds resume after a restart and deliver', async () => {
    const rx = await startReceiver(() => 500);
    const slow = { webhookSchedule: { ...SCHEDULE, roundDelaysMs: [1500], maxRounds: 5 } };
    const first = await startInferenceService({ tuning: slow });
    await first.api('/v1/engines', { method: 'POST', json: { name: 'oa', kind: 'openai', base_url: up.url } });
    const r = await (
      await first.api('/v1/responses', { method: 'POST', json: { model: 'oa/m', input: 'x', metadata: { completion_webhook: rx.url } } })
    ).json();
    await waitFor(
      () => deliveries(first, r.id),
      (v) => v.rounds_done === 1,
    );
    await first.close();
    rx.behave(() => 200);
    const second = await startInferenceService({ tuning: slow, dataDir: first.dataDir });
    try {
      const d = await waitFor(
        () => deliveries(second, r.id),
        (v) => v.state === 'delivered',
      );
      expect(d.data.map((a: { round: number; status_code: number }) => `${a.round}:${a.status_code}`)).toEqual(['1:500', '1:500', '1:500', '2:200']);
      expect(rx.received.length).toBe(4);
    } finally {
      await second.close();
      await rx.close();
    }
  });

  it('background requests: 202 queued, readable while running, picked up again after a restart', async () => {
    const rx = await startReceiver(() => 200);
    up.delayMs = 800;
    const tuning = { webhookSchedule: SCHEDULE, backgroundStopWaitMs: 50 };
    const first = await startInferenceService({ tuning });
    await first.api('/v1/engines', { method: 'POST', json: { name: 'oa', kind: 'openai', base_url: up.url } });
    try {
      const res = await first.api('/v1/responses', {
        method: 'POST',
        json: { model: 'oa/m', input: 'bg one', background: true, metadata: { completion_webhook: rx.url } },
      });
      expect(res.status).toBe(202);
      const queued = await res.json();
      expect(queued).toMatchObject({ status: 'queued', background: true, output: [], usage: null });
      const running = await waitFor(
        async () => (await first.api(`/v1/responses/${queued.id}`)).json(),
        (v) => v.status === 'in_progress',
      );
      expect(running.output).toEqual([]);
      await first.close();
      up.delayMs = 100;
      const second = await startInferenceService({ tuning, dataDir: first.dataDir });
      try {
        const done = await waitFor(
          async () => (await second.api(`/v1/responses/${queued.id}`)).json(),
          (v) => v.status === 'completed',
        );
        expect(done.output[0].content[0].text).toBe('echo: bg one');
        await waitFor(
          () => rx.received.length,
          (n) => n >= 1,
        );
        expect(JSON.parse(rx.received[0]!.body)).toMatchObject({ id: queued.id, status: 'completed' });

        const sdk = new OpenAI({ apiKey: second.key, baseURL: `${second.url}/v1`, maxRetries: 0 });
        const viaSdk = await sdk.responses.create({ model: 'oa/m', input: 'bg two', background: true });
        expect(viaSdk.status).toBe('queued');
        const finished = await waitFor(
          () => sdk.responses.retrieve(viaSdk.id),
          (v) => v.status === 'completed',
        );
        expect(finished.output_text).toBe('echo: bg two');
      } finally {
        await second.close();
      }
    } finally {
      up.delayMs = 0;
      await rx.close();
    }
  });
});
