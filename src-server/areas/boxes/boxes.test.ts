import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeRuntime } from '../../test-support/fake-runtime.js';
import { errorOf, startTestService, type TestService } from '../../test-support/harness.js';

let svc: TestService;
let rt: FakeRuntime;
let appId: string;

beforeAll(async () => {
  svc = await startTestService({ runtime: (d) => (rt = new FakeRuntime(d)) });
  appId = (await (await svc.api('/v1/apps/find', { method: 'POST', json: { name: 'test', mint_if_missing: true } })).json()).id;
});
afterAll(() => svc.close());

const post = (p: string, json: unknown = {}, headers: Record<string, string> = {}) => svc.api(p, { method: 'POST', json, headers });
const create = async (name: string, extra: Record<string, unknown> = {}) => {
  const res = await post('/v1/boxes', { app_id: appId, name, ...extra });
  expect(res.status).toBe(200);
  return res.json();
};

describe('box lifecycle through the transitions table', () => {
  it('creates a running box with the size defaults', async () => {
    const box = await create('alpha');
    expect(box).toMatchObject({ name: 'alpha', status: 'running', image: 'debian', vcpu_count: 1, memory_mib: 512, visibility: 'org', app_id: appId });
    expect(box.box_id).toMatch(/^box_[0-9a-f-]{36}$/);
    expect(box.started_at).not.toBeNull();
    const list = await (await svc.api('/v1/boxes')).json();
    expect(list.data.map((b: { name: string }) => b.name)).toContain('alpha');
    expect(list).toMatchObject({ limit: 50, offset: 0 });
  });

  it('validates create: name pattern, unknown app, duplicate name, unknown image', async () => {
    expect(await errorOf(await post('/v1/boxes', { app_id: appId, name: 'Bad_Name' }))).toMatchObject({ param: 'name' });
    const noApp = await post('/v1/boxes', { app_id: 'app_00000000-0000-0000-0000-000000000000', name: 'x1' });
    expect(noApp.status).toBe(404);
    const dup = await post('/v1/boxes', { app_id: appId, name: 'alpha' });
    expect(dup.status).toBe(409);
    expect(await errorOf(dup)).toMatchObject({ code: 'already_exists', param: 'name' });
    expect(await errorOf(await post('/v1/boxes', { app_id: appId, name: 'x2', image: 'arch' }))).toMatchObject({ param: 'image' });
    // a volume that does not exist is refused naming its place in the list, and nothing is created
    const noVol = await post('/v1/boxes', {
      app_id: appId,
      name: 'x3',
      volume_mounts: [{ volume_id: 'vol_00000000-0000-0000-0000-000000000000', mount_path: '/mnt/v' }],
    });
    expect(noVol.status).toBe(404);
    expect(await errorOf(noVol)).toMatchObject({ param: 'volume_mounts[0].volume_id' });
    const names = (await (await svc.api('/v1/boxes')).json()).data.map((b: { name: string }) => b.name);
    expect(names).not.toContain('x3');
  });

  it('two creates racing for one name: one box, one 409 naming the name (the insert decides)', async () => {
    const both = await Promise.all([post('/v1/boxes', { app_id: appId, name: 'racer' }), post('/v1/boxes', { app_id: appId, name: 'racer' })]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(await errorOf(both.find((r) => r.status === 409)!)).toMatchObject({ code: 'already_exists', param: 'name' });
    const list = await (await svc.api('/v1/boxes?search=racer')).json();
    expect(list.data.filter((b: { name: string }) => b.name === 'racer')).toHaveLength(1);
  });

  it('pause → resume; illegal transitions answer 409 conflict_error', async () => {
    const box = await create('beta');
    const paused = await (await post(`/v1/boxes/${box.box_id}/pause`)).json();
    expect(paused.status).toBe('paused');
    const again = await post(`/v1/boxes/${box.box_id}/pause`);
    expect(again.status).toBe(409);
    expect(await errorOf(again)).toMatchObject({ type: 'conflict_error', code: 'failed_precondition' });
    const execWhilePaused = await post(`/v1/boxes/${box.box_id}/exec`, { command: 'true' });
    expect(execWhilePaused.status).toBe(409);
    const resumed = await (await post(`/v1/boxes/${box.box_id}/resume`)).json();
    expect(resumed).toMatchObject({ status: 'running', resume_state: 'running' });
    const twice = await (await post(`/v1/boxes/${box.box_id}/resume`)).json();
    expect(twice.resume_state).toBe('already_running');
    expect(rt.calls.filter((c) => c.endsWith(box.box_id))).toEqual([`create:${box.box_id}`, `save:${box.box_id}`, `restore:${box.box_id}`]);
  });

  it('a sleeping box wakes on exec; wake_at is kept and cleared on wake', async () => {
    const box = await create('gamma');
    const at = new Date(Date.now() + 3600_000).toISOString();
    const slept = await (await post(`/v1/boxes/${box.box_id}/sleep`, { wake_at: at })).json();
    expect(slept).toMatchObject({ status: 'sleeping', wake_at: at });
    const res = await post(`/v1/boxes/${box.box_id}/exec`, { command: 'echo woke' });
    expect(res.status).toBe(200);
    const events = (await res.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(Buffer.from(events.find((e) => e.type === 'stdout').data, 'base64').toString()).toBe('woke\n');
    const after = await (await svc.api(`/v1/boxes/${box.box_id}`)).json();
    expect(after).toMatchObject({ status: 'running', wake_at: null });
  });

  it('scheduled wake brings a sleeping box back', async () => {
    const box = await create('delta');
    await post(`/v1/boxes/${box.box_id}/sleep`, { wake_at: new Date(Date.now() - 1000).toISOString() });
    const deadline = Date.now() + 5000;
    let status = '';
    while (Date.now() < deadline && status !== 'running') {
      await new Promise((r) => setTimeout(r, 200));
      status = (await (await svc.api(`/v1/boxes/${box.box_id}`)).json()).status;
    }
    expect(status).toBe('running');
  });

  it('a failed start leaves the box failed with the reason', async () => {
    rt.failNext = 'create';
    const box = await create('broken');
    expect(box.status).toBe('failed');
    expect(box.error_message).toContain('injected create failure');
    expect((await post(`/v1/boxes/${box.box_id}/pause`)).status).toBe(409);
  });

  it('a VM killed under a running box → interrupted_restorable; the next exec restarts it from disk', async () => {
    const box = await create('epsilon');
    rt.crash(box.box_id, 'killed', 'QEMU was killed');
    // the crash is recorded as the runtime reports it: one store round trip later on PostgreSQL
    await expect
      .poll(async () => await (await svc.api(`/v1/boxes/${box.box_id}`)).json())
      .toMatchObject({ status: 'interrupted_restorable', error_message: 'QEMU was killed' });
    const res = await post(`/v1/boxes/${box.box_id}/exec`, { command: 'true' });
    expect(res.status).toBe(200);
    expect(rt.calls).toContain(`coldBoot:${box.box_id}`);
    const panic = await create('zeta');
    rt.crash(panic.box_id, 'panic', 'Kernel panic - not syncing');
    await expect.poll(async () => (await (await svc.api(`/v1/boxes/${panic.box_id}`)).json()).status).toBe('failed');
  });

  it('a terminated box stays readable for a day, listed under status=terminated; its name is free again; then it is purged', async () => {
    const box = await create('eta');
    const t = await (await post(`/v1/boxes/${box.box_id}/terminate`)).json();
    expect(t.status).toBe('terminated');
    const got = await svc.api(`/v1/boxes/${box.box_id}`);
    expect(got.status).toBe(200);
    expect(await got.json()).toMatchObject({ box_id: box.box_id, status: 'terminated' });
    const listed = await (await svc.api('/v1/boxes?status=terminated')).json();
    expect(listed.data.map((b: { box_id: string }) => b.box_id)).toContain(box.box_id);
    const live = await (await svc.api('/v1/boxes')).json();
    expect(live.data.map((b: { box_id: string }) => b.box_id)).not.toContain(box.box_id);
    // Operations other than reading still answer 404 on a terminated box.
    expect((await post(`/v1/boxes/${box.box_id}/pause`)).status).toBe(404);
    const again = await create('eta');
    expect(again.box_id).not.toBe(box.box_id);
    expect(again.status).toBe('running');
    const boxes = svc.ctx.services.boxes;
    expect(await boxes.purgeTerminated(Date.now() + 23 * 3600 * 1000)).toBe(0);
    expect((await svc.api(`/v1/boxes/${box.box_id}`)).status).toBe(200);
    expect(await boxes.purgeTerminated(Date.now() + 25 * 3600 * 1000)).toBeGreaterThanOrEqual(1);
    expect((await svc.api(`/v1/boxes/${box.box_id}`)).status).toBe(404);
    expect((await svc.api(`/v1/boxes/${again.box_id}`)).status).toBe(200);
    expect((await svc.api('/v1/boxes/not-a-box')).status).toBe(400);
  });
});

describe('private boxes and the operator override', () => {
  it('needs a reason from another key, records it in the audit log; creator-only ops refuse', async () => {
    const box = await create('private1', { visibility: 'private' });
    const other = await (await post('/v1/api-keys', { name: 'admin2', scope: 'organization' })).json();
    const as = (h: Record<string, string> = {}) => ({ authorization: `Bearer ${other.secret}`, ...h });
    const refused = await post(`/v1/boxes/${box.box_id}/pause`, {}, as());
    expect(refused.status).toBe(403);
    expect((await errorOf(refused)).message).toContain('X-Box-Override-Reason');
    const badReason = await post(`/v1/boxes/${box.box_id}/pause`, {}, as({ 'X-Box-Override-Reason': 'tab\there' }));
    expect(badReason.status).toBe(400);
    const ok = await post(`/v1/boxes/${box.box_id}/pause`, {}, as({ 'X-Box-Override-Reason': 'incident 42' }));
    expect(ok.status).toBe(200);
    const log = await (await svc.api('/v1/audit-log')).json();
    expect(log.data[0]).toMatchObject({ action: 'box.override.pause', target: box.box_id, reason: 'incident 42', key_id: other.id });
    const cp = await post(`/v1/boxes/${box.box_id}/checkpoint`, {}, as({ 'X-Box-Override-Reason': 'please' }));
    expect(cp.status).toBe(403);
    const own = await post(`/v1/boxes/${box.box_id}/checkpoint`, {});
    expect(own.status).toBe(200);
  });
});

describe('checkpoints and forks', () => {
  it('checkpoint, list, new box from it, fork a paused box without waking it, delete', async () => {
    const box = await create('src');
    await post(`/v1/boxes/${box.box_id}/exec`, { command: 'echo hello > state.txt' }).then((r) => r.text());
    const cp = await (await post(`/v1/boxes/${box.box_id}/checkpoint`, { name: 'first', ttl_seconds: 3600 })).json();
    expect(cp).toMatchObject({ box_id: box.box_id, name: 'first', status: 'ready', checkpoint_generation: 1, size_bytes: 4096 });
    expect(cp.checkpoint_id).toMatch(/^boxcp_/);
    // the size the runtime measured stays (the "saved" write, made first, never lands after it)
    await new Promise((r) => setTimeout(r, 50));
    expect((await (await svc.api(`/v1/box-checkpoints/${cp.checkpoint_id}`)).json()).size_bytes).toBe(4096);
    const list = await (await svc.api(`/v1/box-checkpoints?box_id=${box.box_id}`)).json();
    expect(list.data).toHaveLength(1);
    const copy = await (await post('/v1/boxes/from_checkpoint', { checkpoint_id: cp.checkpoint_id, name: 'copy' })).json();
    expect(copy.status).toBe('running');
    const out = await (await post(`/v1/boxes/${copy.box_id}/exec/`.slice(0, -1), { command: 'cat state.txt' })).text();
    expect(out).toContain(Buffer.from('hello\n').toString('base64'));
    await post(`/v1/boxes/${box.box_id}/pause`);
    const fork = await (await post(`/v1/boxes/${box.box_id}/fork`, { name: 'kid', count: 2 })).json();
    expect(fork.boxes.map((b: { name: string; status: string }) => [b.name, b.status])).toEqual([
      ['kid-1', 'running'],
      ['kid-2', 'running'],
    ]);
    expect((await (await svc.api(`/v1/boxes/${box.box_id}`)).json()).status).toBe('paused');
    const lineage = await (await svc.api('/v1/box-lineage')).json();
    expect(lineage.data.filter((l: { parent_box_id: string }) => l.parent_box_id === box.box_id)).toHaveLength(2);
    const del = await svc.api(`/v1/box-checkpoints/${cp.checkpoint_id}`, { method: 'DELETE' });
    expect(del.status).toBe(200);
    expect((await svc.api(`/v1/box-checkpoints/${cp.checkpoint_id}`)).status).toBe(404);
  });
});

describe('exec stdin after the command ended', () => {
  it('answers 409 failed_precondition, not a server error', async () => {
    const box = await create('stdin-ended');
    const res = await post(`/v1/boxes/${box.box_id}/exec`, { command: 'true', open_stdin: true, background: true });
    const execId = JSON.parse((await res.text()).trim().split('\n')[0]!).exec_id;
    const waited = await (await post(`/v1/boxes/${box.box_id}/exec/${execId}/wait`)).json();
    expect(waited.status).toBe('succeeded');
    const late = await svc.api(`/v1/boxes/${box.box_id}/exec/${execId}/stdin?offset=0`, { method: 'PUT', body: 'x' });
    expect(late.status).toBe(409);
    expect((await errorOf(late)).code).toBe('failed_precondition');
  });
});
