import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, startTestService, type TestService } from '../../test-support/harness.js';
import type { Inbox, InboxDelivery } from '@box/contract/inbox';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({});
});
afterAll(() => svc.close());

const createInbox = async (json: unknown = {}) => {
  const res = await svc.api('/v1/inbox', { method: 'POST', json });
  expect(res.status).toBe(200);
  return (await res.json()) as Inbox;
};

describe('webhook inbox', () => {
  it('records a delivery without an API key and lists it for the org', async () => {
    const inbox = await createInbox();
    expect(inbox.url).toBe(`${svc.url}/v1/inbox/hooks/${inbox.inbox_id}`);
    const hook = await fetch(inbox.url, { method: 'POST', headers: { 'content-type': 'application/json', 'webhook-id': 'msg_1' }, body: '{"id":"resp_1"}' });
    expect(hook.status).toBe(200);
    const list = await svc.api(`/v1/inbox?inbox_id=${inbox.inbox_id}`);
    const body = (await list.json()) as { data: InboxDelivery[]; total: number };
    expect(body.total).toBe(1);
    expect(body.data[0].body).toBe('{"id":"resp_1"}');
    expect(body.data[0].headers['webhook-id']).toBe('msg_1');
    expect(body.data[0].answered_status).toBe(200);
  });

  it("never keeps nor shows the service's own credentials (the egress proxy's proof, the UI session cookie)", async () => {
    const inbox = await createInbox();
    const headers = {
      'x-box-gateway-auth': 'hmac-proof',
      'x-box-id': 'box_1',
      cookie: 'box_session=secret',
      'webhook-id': 'msg_2',
      authorization: 'Bearer user-token',
    };
    expect((await fetch(inbox.url, { method: 'POST', headers, body: '{}' })).status).toBe(200);
    const list = (await (await svc.api(`/v1/inbox?inbox_id=${inbox.inbox_id}`)).json()) as { data: InboxDelivery[] };
    const shown = list.data[0].headers;
    expect(shown['webhook-id']).toBe('msg_2');
    // the sender's own token is the sender's business (a webhook's configured bearer)
    expect(shown.authorization).toBe('Bearer user-token');
    for (const h of ['x-box-gateway-auth', 'x-box-id', 'cookie']) expect(shown).not.toHaveProperty(h);
    expect(JSON.stringify(list)).not.toMatch(/hmac-proof|box_session/);
  });

  it('answers the configured status so senders retry, and it can be changed', async () => {
    const inbox = await createInbox({ respond_status: 503 });
    expect((await fetch(inbox.url, { method: 'POST', body: 'x' })).status).toBe(503);
    const patched = await svc.api(`/v1/inbox/${inbox.inbox_id}`, { method: 'PATCH', json: { respond_status: 204 } });
    expect(((await patched.json()) as Inbox).respond_status).toBe(204);
    expect((await fetch(inbox.url, { method: 'POST', body: 'y' })).status).toBe(204);
    const list = (await (await svc.api(`/v1/inbox?inbox_id=${inbox.inbox_id}`)).json()) as { data: InboxDelivery[] };
    expect(list.data.map((d) => [d.body, d.answered_status])).toEqual([
      ['y', 204],
      ['x', 503],
    ]);
  });

  it('refuses unknown inboxes, bad statuses and listing without a key', async () => {
    const unknown = await fetch(`${svc.url}/v1/inbox/hooks/inbox_00000000-0000-0000-0000-000000000000`, { method: 'POST', body: '{}' });
    expect(unknown.status).toBe(404);
    const bad = await svc.api('/v1/inbox', { method: 'POST', json: { respond_status: 99 } });
    expect(bad.status).toBe(400);
    expect((await errorOf(bad)).param).toBe('respond_status');
    const anon = await fetch(`${svc.url}/v1/inbox`);
    expect(anon.status).toBe(401);
  });

  it('counts but does not keep bodies past the cap', async () => {
    const inbox = await createInbox();
    const big = 'a'.repeat(300 * 1024);
    await fetch(inbox.url, { method: 'POST', body: big });
    const list = (await (await svc.api(`/v1/inbox?inbox_id=${inbox.inbox_id}`)).json()) as { data: InboxDelivery[] };
    expect(list.data[0].body_bytes).toBe(big.length);
    expect(list.data[0].body_truncated).toBe(true);
    expect(list.data[0].body.length).toBe(256 * 1024);
  });
});
