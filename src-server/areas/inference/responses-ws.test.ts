import OpenAI from 'openai';
import { ResponsesWS } from 'openai/resources/responses/ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { TestService } from '../../test-support/harness.js';
import { waitFor } from './test-support/receiver.js';
import { startInferenceService } from './test-support/service.js';

type Event = { type: string; [k: string]: any };

let svc: TestService;
beforeAll(async () => {
  svc = await startInferenceService();
});
afterAll(() => svc?.close());

const wsUrl = () => `${svc.url.replace(/^http/, 'ws')}/v1/responses`;

/** A connection whose events are read turn by turn (a turn ends in completed, incomplete or error). */
async function connect(headers: Record<string, string> = { authorization: `Bearer ${svc.key}` }) {
  const ws = new WebSocket(wsUrl(), { headers });
  const events: Event[] = [];
  let wake: (() => void) | null = null;
  ws.on('message', (d) => {
    events.push(JSON.parse(String(d)) as Event);
    wake?.();
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const turn = async (body: Record<string, unknown>): Promise<Event[]> => {
    ws.send(JSON.stringify({ type: 'response.create', ...body }));
    const out: Event[] = [];
    for (;;) {
      while (!events.length) await new Promise<void>((r) => (wake = r));
      const e = events.shift()!;
      out.push(e);
      if (['response.completed', 'response.incomplete', 'error'].includes(e.type)) return out;
    }
  };
  return { ws, turn, close: () => ws.close() };
}

const last = (events: Event[]) => events[events.length - 1]!;

/** The status the server answered an upgrade with, and its JSON body (a refused upgrade). */
function refusedUpgrade(headers: Record<string, string>): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl(), { headers });
    ws.on('open', () => reject(new Error('upgraded')));
    ws.on('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    ws.on('error', () => {});
  });
}

describe('WebSocket mode on /v1/responses', () => {
  it('answers two sequential responses on one connection with the HTTP stream events', async () => {
    const c = await connect();
    const one = await c.turn({ model: 'box/echo', input: 'hello there' });
    expect(one.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      ...one.filter((e) => e.type === 'response.output_text.delta').map(() => 'response.output_text.delta'),
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(one.map((e) => e.sequence_number)).toEqual(one.map((_, i) => i));
    expect(last(one).response.output[0].content[0].text).toBe('Echo: hello there');
    const two = await c.turn({ model: 'box/echo', input: 'second' });
    expect(last(two).response.output[0].content[0].text).toBe('Echo: second');
    expect(last(two).response.id).not.toBe(last(one).response.id);
    // stored (store defaults to true): readable over HTTP, and charged like any request
    const got = await (await svc.api(`/v1/responses/${last(two).response.id}`)).json();
    expect(got.output[0].content[0].text).toBe('Echo: second');
    c.close();
  });

  it('continues from a store:false response of the same connection; after a reconnect it is not found', async () => {
    const c = await connect();
    const first = last(await c.turn({ model: 'box/echo', input: 'hello there', store: false }));
    expect(first.type).toBe('response.completed');
    expect(first.response.store).toBe(false);
    const id = first.response.id as string;
    expect((await svc.api(`/v1/responses/${id}`)).status).toBe(404); // never stored
    const next = last(await c.turn({ model: 'box/echo', input: 'again', previous_response_id: id, store: false }));
    expect(next.type).toBe('response.completed');
    expect(next.response.previous_response_id).toBe(id);
    // the conversation came along: "hello there" (2) + "Echo: hello there" (4) + "again" (1)
    expect(next.response.usage.input_tokens).toBe(7);
    c.close();

    const d = await connect();
    const err = last(await d.turn({ model: 'box/echo', input: 'again', previous_response_id: id }));
    expect(err).toMatchObject({ type: 'error', status: 400, error: { code: 'previous_response_not_found', param: 'previous_response_id' } });
    // the connection stays usable
    expect(last(await d.turn({ model: 'box/echo', input: 'still here' })).type).toBe('response.completed');
    d.close();
  });

  it('a stored response continues on another connection; a failed continuation evicts its cache entry', async () => {
    const c = await connect();
    const stored = last(await c.turn({ model: 'box/echo', input: 'kept' })).response.id as string;
    const unstored = last(await c.turn({ model: 'box/echo', input: 'fleeting', store: false })).response.id as string;
    const failed = last(await c.turn({ model: 'box/nope', input: 'x', previous_response_id: unstored }));
    expect(failed).toMatchObject({ type: 'error', status: 404, error: { code: 'model_not_found' } });
    const gone = last(await c.turn({ model: 'box/echo', input: 'x', previous_response_id: unstored }));
    expect(gone).toMatchObject({ type: 'error', error: { code: 'previous_response_not_found' } });
    c.close();
    const d = await connect();
    const again = last(await d.turn({ model: 'box/echo', input: 'more', previous_response_id: stored }));
    expect(again.type).toBe('response.completed');
    expect(again.response.usage.input_tokens).toBe(1 + 3 + 1);
    d.close();
  });

  it('an output for a call the conversation never made fails the turn (400, its call_id named) and evicts the previous response', async () => {
    const c = await connect();
    const first = last(await c.turn({ model: 'box/echo', input: 'Remember: ember', store: false })).response.id as string;
    const orphan = { type: 'function_call_output', call_id: 'call_missing', output: 'no call asked for this' };
    const failed = last(await c.turn({ model: 'box/echo', store: false, previous_response_id: first, input: [orphan] }));
    expect(failed).toMatchObject({ type: 'error', status: 400, error: { param: 'input[0].call_id' } });
    expect(failed.error.message).toContain('call_missing');
    const stale = last(await c.turn({ model: 'box/echo', store: false, previous_response_id: first, input: 'again' }));
    expect(stale).toMatchObject({ type: 'error', error: { code: 'previous_response_not_found' } });
    c.close();
    // Over HTTP the same input is refused; an output that answers a call of its own input is not.
    const http = await svc.api('/v1/responses', { method: 'POST', json: { model: 'box/echo', input: [orphan] } });
    expect(http.status).toBe(400);
    expect(((await http.json()) as any).error.param).toBe('input[0].call_id');
    const call = { type: 'function_call', call_id: 'call_missing', name: 'f', arguments: '{}' };
    const ok = await svc.api('/v1/responses', { method: 'POST', json: { model: 'box/echo', input: [call, orphan] } });
    expect(ok.status).toBe(200);
  });

  it('the OpenAPI document lists the WebSocket endpoint, 101, with the messages of each side', async () => {
    const doc = await (await svc.api('/v1/openapi.json')).json();
    const op = doc.paths['/v1/responses'].get;
    expect(op.responses['101'].description).toContain('WebSocket');
    expect(op.parameters).toEqual([expect.objectContaining({ name: 'Upgrade', in: 'header', required: true })]);
    expect(op['x-websocket'].client.properties.type.const ?? op['x-websocket'].client.properties.type.enum).toEqual(
      expect.arrayContaining(['response.create']),
    );
    expect(op['x-websocket'].client.required).toEqual(expect.arrayContaining(['type', 'model', 'input']));
    const server = JSON.stringify(op['x-websocket'].server);
    for (const t of ['response.created', 'response.output_text.delta', 'response.completed', 'error']) expect(server).toContain(`"${t}"`);
    expect(doc.paths['/v1/responses'].post.responses['200']).toBeDefined();
  });

  it('refuses bad events with an error event and keeps the connection', async () => {
    const c = await connect();
    expect(last(await c.turn({ model: 'box/echo', input: 'x', background: true }))).toMatchObject({ type: 'error', error: { param: 'background' } });
    expect(last(await c.turn({ input: 'x' }))).toMatchObject({ type: 'error', status: 400, error: { param: 'model' } });
    c.ws.send('not json');
    expect(last(await c.turn({ model: 'box/echo', input: 'ok' }))).toMatchObject({ type: 'error', error: { message: 'The message is not valid JSON.' } });
    c.close();
  });

  it('refuses the upgrade without a key, with a wrong key, cross-origin and for a foreign Host', async () => {
    expect(await refusedUpgrade({})).toMatchObject({ status: 401, body: { error: { type: 'authentication_error' } } });
    expect((await refusedUpgrade({ authorization: 'Bearer sk-wrong' })).status).toBe(401);
    const cross = await refusedUpgrade({ authorization: `Bearer ${svc.key}`, origin: 'http://evil.example' });
    expect(cross).toMatchObject({ status: 403, body: { error: { code: 'cross_origin_refused' } } });
    const rebound = await refusedUpgrade({ authorization: `Bearer ${svc.key}`, host: 'evil.example' });
    expect(rebound).toMatchObject({ status: 403, body: { error: { code: 'host_not_allowed' } } });
  });

  it('charges each turn like an HTTP request, and at zero credits refuses turns and upgrades (402)', async () => {
    const c = await connect();
    const before = (await (await svc.api('/v1/organization')).json()).credits_usd_nanos;
    const tokens = async () => JSON.stringify(await (await svc.api('/v1/usage/tokens')).json());
    const seen = await tokens();
    await c.turn({ model: 'box/echo', input: 'count me in please' });
    await waitFor(tokens, (t) => t !== seen);
    await svc.api('/v1/organization', { method: 'PATCH', json: { credits_usd_nanos: 0 } });
    try {
      expect(last(await c.turn({ model: 'box/echo', input: 'x' }))).toMatchObject({ type: 'error', status: 402, error: { code: 'credits_exhausted' } });
      expect(await refusedUpgrade({ authorization: `Bearer ${svc.key}` })).toMatchObject({ status: 402, body: { error: { code: 'credits_exhausted' } } });
    } finally {
      await svc.api('/v1/organization', { method: 'PATCH', json: { credits_usd_nanos: before } });
    }
    expect(last(await c.turn({ model: 'box/echo', input: 'x' })).type).toBe('response.completed');
    c.close();
  });

  it("the official openai client's ResponsesWS runs two turns and a store:false continuation", async () => {
    const client = new OpenAI({ apiKey: svc.key, baseURL: `${svc.url}/v1` });
    const rws = new ResponsesWS(client);
    const done: Event[] = [];
    let wake: (() => void) | null = null;
    rws.on('event', (e) => {
      if (e.type === 'response.completed' || e.type === 'error') {
        done.push(e as Event);
        wake?.();
      }
    });
    rws.on('error', () => {});
    const next = async () => {
      while (!done.length) await new Promise<void>((r) => (wake = r));
      return done.shift()!;
    };
    rws.send({ type: 'response.create', model: 'box/echo', input: 'hi', store: false });
    const a = await next();
    expect(a.response.output[0].content[0].text).toBe('Echo: hi');
    rws.send({ type: 'response.create', model: 'box/echo', input: 'and', previous_response_id: a.response.id, store: false });
    const b = await next();
    expect(b.type).toBe('response.completed');
    expect(b.response.usage.input_tokens).toBe(1 + 3 + 1);
    rws.close();
  });
});
