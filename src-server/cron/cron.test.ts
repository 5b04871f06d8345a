import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeRuntime } from '../test-support/fake-runtime.js';
import { errorOf, startTestService, type TestService } from '../test-support/harness.js';

let svc: TestService;
let rt: FakeRuntime;
let boxId: string;

beforeAll(async () => {
  svc = await startTestService({ runtime: (d) => (rt = new FakeRuntime(d)), tuning: { cronTickMs: 3_600_000 } });
  const appId = (await (await svc.api('/v1/apps/find', { method: 'POST', json: { name: 'c', mint_if_missing: true } })).json()).id;
  boxId = (await (await svc.api('/v1/boxes', { method: 'POST', json: { app_id: appId, name: 'cronbox' } })).json()).box_id;
});
afterAll(() => svc.close());

const addJob = (json: Record<string, unknown>) => svc.api(`/v1/boxes/${boxId}/cron`, { method: 'POST', json });

describe('cron job records', () => {
  it('creates a job in the spec shape: optional fields absent, env names sorted, values never returned', async () => {
    const bare = await (await addJob({ schedule: '*/5 * * * *', command: 'date' })).json();
    expect(Object.keys(bare)).toEqual(['id', 'box_id', 'schedule', 'timezone', 'command', 'next_run_at', 'created_at']);
    expect(bare).toMatchObject({ box_id: boxId, timezone: 'UTC', schedule: '*/5 * * * *' });
    expect(bare.id).toMatch(/^cron_/);
    expect(new Date(bare.next_run_at).getUTCMinutes() % 5).toBe(0);
    const full = await (
      await addJob({
        schedule: '0 9 * * 1-5',
        timezone: 'America/New_York',
        command: 'echo hi',
        cwd: '/root',
        user: 'root',
        env: { ZED: 'secret-z', ALPHA: 'secret-a' },
        timeout: 30,
      })
    ).json();
    expect(full).toMatchObject({ cwd: '/root', user: 'root', env_names: ['ALPHA', 'ZED'], timeout: 30 });
    expect(JSON.stringify(full)).not.toContain('secret-');
    // 09:00 in New York is 13:00 or 14:00 UTC depending on DST.
    expect([13, 14]).toContain(new Date(full.next_run_at).getUTCHours());
    const got = await (await svc.api(`/v1/boxes/${boxId}/cron/${full.id}`)).json();
    expect(got).toEqual(full);
  });

  it('Run now is a run: last_run_at is its start, the next scheduled run stays (issue 29)', async () => {
    const job = await (await addJob({ schedule: '0 3 * * *', command: 'echo now' })).json();
    expect(job.last_run_at).toBeUndefined();
    const run = await svc.api(`/v1/boxes/${boxId}/cron/${job.id}/run`, { method: 'POST' });
    expect(run.status).toBe(202);
    const started = (await run.json()).started_at as string;
    const after = await (await svc.api(`/v1/boxes/${boxId}/cron/${job.id}`)).json();
    expect(after.last_run_at).toBe(started);
    expect(after.next_run_at).toBe(job.next_run_at);
    await new Promise((r) => setTimeout(r, 300));
    expect((await svc.api(`/v1/boxes/${boxId}/cron/${job.id}`, { method: 'DELETE' })).status).toBe(200);
  });

  it('validates schedule (exactly five fields) and IANA time zone, naming the field', async () => {
    for (const schedule of ['* * * *', '* * * * * *', '61 * * * *', 'every day']) {
      const res = await addJob({ schedule, command: 'x' });
      expect(res.status, schedule).toBe(400);
      expect((await errorOf(res)).param).toBe('schedule');
    }
    expect((await errorOf(await addJob({ schedule: '* * * * *', timezone: 'Mars/Olympus', command: 'x' }))).param).toBe('timezone');
    expect((await errorOf(await addJob({ schedule: '* * * * *' }))).param).toBe('command');
  });

  it('lists oldest first with all five paging fields; limit and offset bounds per spec', async () => {
    const page1 = await (await svc.api(`/v1/boxes/${boxId}/cron?limit=1`)).json();
    expect(Object.keys(page1).sort()).toEqual(['data', 'has_more', 'limit', 'offset', 'total']);
    expect(page1).toMatchObject({ limit: 1, offset: 0, total: 2, has_more: true });
    expect(page1.data[0].command).toBe('date');
    const page2 = await (await svc.api(`/v1/boxes/${boxId}/cron?limit=1&offset=1`)).json();
    expect(page2).toMatchObject({ offset: 1, has_more: false });
    expect(page2.data[0].command).toBe('echo hi');
    for (const q of ['limit=0', 'limit=101', 'offset=-1', 'offset=100001', 'limit=abc']) {
      expect((await svc.api(`/v1/boxes/${boxId}/cron?${q}`)).status, q).toBe(400);
    }
    expect((await svc.api(`/v1/boxes/${boxId}/cron?offset=100000`)).status).toBe(200);
    expect((await svc.api('/v1/boxes/box_00000000-0000-0000-0000-000000000000/cron')).status).toBe(404);
    expect((await svc.api('/v1/boxes/nope/cron')).status).toBe(400);
  });

  it('listing a paused or sleeping box does not wake it', async () => {
    await svc.api(`/v1/boxes/${boxId}/pause`, { method: 'POST' });
    const before = rt.calls.length;
    expect((await svc.api(`/v1/boxes/${boxId}/cron`)).status).toBe(200);
    expect((await (await svc.api(`/v1/boxes/${boxId}`)).json()).status).toBe('paused');
    await svc.api(`/v1/boxes/${boxId}/resume`, { method: 'POST' });
    await svc.api(`/v1/boxes/${boxId}/sleep`, { method: 'POST', json: {} });
    const mark = rt.calls.length;
    expect((await svc.api(`/v1/boxes/${boxId}/cron`)).status).toBe(200);
    expect((await (await svc.api(`/v1/boxes/${boxId}`)).json()).status).toBe('sleeping');
    expect(rt.calls.length).toBe(mark);
    expect(mark).toBeGreaterThan(before);
  });

  it('a due job wakes the sleeping box, runs with its env, records the run, and the box sleeps again', async () => {
    const job = await (await addJob({ schedule: '* * * * *', command: 'echo "$ZED-ran"', env: { ZED: 'z' } })).json();
    await svc.ctx.db.run('UPDATE cron_jobs SET next_run_at = ? WHERE id = ?', [new Date(Date.now() - 1000).toISOString(), job.id]);
    await svc.ctx.services.cronRunner.tick();
    let runs: { status: string; output_tail: string }[] = [];
    for (let i = 0; i < 50 && runs[0]?.status !== 'succeeded'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      runs = (await (await svc.api(`/v1/boxes/${boxId}/cron/${job.id}/runs`)).json()).data;
    }
    expect(runs[0]).toMatchObject({ status: 'succeeded', output_tail: 'z-ran\n', return_code: 0 });
    const after = await (await svc.api(`/v1/boxes/${boxId}/cron/${job.id}`)).json();
    expect(after.last_run_at).toBeDefined();
    expect(Date.parse(after.next_run_at)).toBeGreaterThan(Date.now() - 1000);
    expect((await (await svc.api(`/v1/boxes/${boxId}`)).json()).status).toBe('sleeping');
    const del = await svc.api(`/v1/boxes/${boxId}/cron/${job.id}`, { method: 'DELETE' });
    expect(del.status).toBe(200);
    expect((await svc.api(`/v1/boxes/${boxId}/cron/${job.id}`)).status).toBe(404);
  });
});
