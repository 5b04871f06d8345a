import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../test-support/harness.js';
import type { Inbox, InboxDelivery } from '@box/contract/inbox';

// Issue 13 (the inbox was lost on restart) and issue 14 (its memory was unbounded).
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'box-inbox-'));
const open: TestService[] = [];
const start = async (tuning: Record<string, unknown> = {}) => {
  const s = await startTestService({ dataDir, tuning });
  open.push(s);
  return s;
};
afterAll(async () => {
  for (const s of open) await s.close().catch(() => {});
});

const deliveries = async (svc: TestService, inboxId: string, limit = 100) =>
  (await (await svc.api(`/v1/inbox?inbox_id=${inboxId}&limit=${limit}`)).json()) as { data: InboxDelivery[]; total: number };

describe('webhook inbox storage', () => {
  it('inboxes and deliveries survive a restart', async () => {
    const a = await start();
    const inbox = (await (await a.api('/v1/inbox', { method: 'POST', json: { respond_status: 202 } })).json()) as Inbox;
    expect((await fetch(inbox.url, { method: 'POST', body: '{"n":1}', headers: { 'webhook-id': 'm1' } })).status).toBe(202);
    expect((await fetch(inbox.url, { method: 'POST', body: Buffer.from([0xc3, 0xa9]) })).status).toBe(202);
    await a.close();
    const b = await start();
    const listed = (await (await b.api('/v1/inboxes')).json()) as { data: Inbox[] };
    expect(listed.data.map((i) => [i.inbox_id, i.respond_status, i.delivery_count])).toEqual([[inbox.inbox_id, 202, 2]]);
    const got = await deliveries(b, inbox.inbox_id);
    expect(got.data.map((d) => d.body)).toEqual(['é', '{"n":1}']);
    expect(got.data[1]!.headers['webhook-id']).toBe('m1');
    // The hook URL keeps working after the restart (on the new port).
    expect((await fetch(`${b.url}/v1/inbox/hooks/${inbox.inbox_id}`, { method: 'POST', body: 'after' })).status).toBe(202);
    expect((await deliveries(b, inbox.inbox_id)).total).toBe(3);
    await b.close();
  });

  it("each user's own inbox (POST /v1/inbox/mine): the same one on every visit and after a restart, another key's is its own; all stay listed", async () => {
    const a = await start();
    const mine = (await (await a.api('/v1/inbox/mine', { method: 'POST' })).json()) as Inbox;
    expect((await (await a.api('/v1/inbox/mine', { method: 'POST' })).json()).inbox_id).toBe(mine.inbox_id);
    expect(mine.respond_status).toBe(200);
    expect((await fetch(mine.url, { method: 'POST', body: 'kept' })).status).toBe(200);
    const other = await (await a.api('/v1/api-keys', { method: 'POST', json: { name: 'second', scope: 'organization' } })).json();
    const as2 = { headers: { authorization: `Bearer ${other.secret}` } };
    const theirs = (await (await a.api('/v1/inbox/mine', { method: 'POST', ...as2 })).json()) as Inbox;
    expect(theirs.inbox_id).not.toBe(mine.inbox_id);
    await a.close();
    const b = await start();
    const again = (await (await b.api('/v1/inbox/mine', { method: 'POST' })).json()) as Inbox;
    expect(again).toMatchObject({ inbox_id: mine.inbox_id, delivery_count: 1 });
    expect((await deliveries(b, mine.inbox_id)).data.map((d) => d.body)).toEqual(['kept']);
    const listed = ((await (await b.api('/v1/inboxes')).json()) as { data: Inbox[] }).data.map((i) => i.inbox_id);
    expect(listed).toEqual(expect.arrayContaining([mine.inbox_id, theirs.inbox_id]));
    await b.close();
  });

  it('an organization keeps at most its byte budget: the oldest deliveries go, the newest stay', async () => {
    const budget = 1024 * 1024;
    const svc = await start({ inboxMaxBytesPerOrg: budget });
    const one = (await (await svc.api('/v1/inbox', { method: 'POST', json: {} })).json()) as Inbox;
    const two = (await (await svc.api('/v1/inbox', { method: 'POST', json: {} })).json()) as Inbox;
    const body = (i: number) => String(i % 10).repeat(256 * 1024);
    for (let i = 0; i < 12; i++) {
      const res = await fetch(i % 2 ? two.url : one.url, { method: 'POST', body: body(i) });
      expect(res.status).toBe(200);
    }
    const kept = [...(await deliveries(svc, one.inbox_id)).data, ...(await deliveries(svc, two.inbox_id)).data];
    const keptBytes = kept.reduce((n, d) => n + d.body.length + JSON.stringify(d.headers).length, 0);
    expect(keptBytes).toBeLessThanOrEqual(budget);
    expect(kept.length).toBe(3); // 4 × 256 KiB bodies + headers exceed 1 MiB
    const firsts = kept.map((d) => d.body[0]).sort();
    expect(firsts).toEqual(['1', '0', '9'].sort()); // posts 9, 10, 11: the newest
    await svc.close();
  });
});
