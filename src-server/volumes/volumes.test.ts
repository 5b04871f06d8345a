import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, startTestService, type TestService } from '../test-support/harness.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({});
});
afterAll(() => svc.close());

const create = (name: unknown) => svc.api('/v1/box-volumes', { method: 'POST', json: { name } });

describe('volume records', () => {
  it('find-or-create: the same name returns the same ready volume', async () => {
    const a = await (await create('data')).json();
    expect(a).toMatchObject({ name: 'data', backend: 'local', status: 'ready' });
    expect(a.volume_id).toMatch(/^vol_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(new Date(a.created_at).toISOString()).toBe(a.created_at);
    const b = await (await create('data')).json();
    expect(b.volume_id).toBe(a.volume_id);
    expect(fs.statSync(path.join(svc.dataDir, 'volumes', a.volume_id, 'data')).isDirectory()).toBe(true);
    expect(await svc.ctx.services.volumes.hostPath((await svc.ctx.repos.orgs.ensureDefault()).id, a.volume_id)).toBe(
      path.join(svc.dataDir, 'volumes', a.volume_id, 'data'),
    );
  });

  it('name rules: 1..128 characters of letters, digits, ".", "-", "_"', async () => {
    expect((await create('a'.repeat(128))).status).toBe(200);
    expect((await create('A.b-c_9')).status).toBe(200);
    for (const bad of ['a'.repeat(129), '', 'has space', 'slash/no', 'ü', 'semi;colon', 42]) {
      const res = await create(bad);
      expect(res.status, String(bad)).toBe(400);
      expect(await errorOf(res)).toMatchObject({ type: 'invalid_request_error', param: 'name' });
    }
    const missing = await svc.api('/v1/box-volumes', { method: 'POST', json: {} });
    expect((await errorOf(missing)).param).toBe('name');
  });

  it('list, get; malformed id → 400 volume_id, unknown → 404', async () => {
    const v = await (await create('listed')).json();
    const list = await (await svc.api('/v1/box-volumes?limit=100')).json();
    expect(list.data.map((x: { volume_id: string }) => x.volume_id)).toContain(v.volume_id);
    expect(list).toMatchObject({ limit: 100, offset: 0, has_more: false });
    expect(list.total).toBe(list.data.length);
    expect(await (await svc.api(`/v1/box-volumes/${v.volume_id}`)).json()).toEqual(v);
    const bad = await svc.api('/v1/box-volumes/vol_nope');
    expect(bad.status).toBe(400);
    expect((await errorOf(bad)).param).toBe('volume_id');
    const unknown = await svc.api('/v1/box-volumes/vol_00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
    expect((await errorOf(unknown)).type).toBe('not_found_error');
  });

  it('delete: status deleted, files removed, the name becomes free again', async () => {
    const v = await (await create('gone')).json();
    const dir = path.join(svc.dataDir, 'volumes', v.volume_id);
    fs.writeFileSync(path.join(dir, 'data', 'f'), 'x');
    const del = await svc.api(`/v1/box-volumes/${v.volume_id}`, { method: 'DELETE' });
    expect(del.status).toBe(200);
    expect(await del.json()).toMatchObject({ volume_id: v.volume_id, status: 'deleted' });
    expect(fs.existsSync(dir)).toBe(false);
    expect((await (await svc.api(`/v1/box-volumes/${v.volume_id}`)).json()).status).toBe('deleted');
    const list = await (await svc.api('/v1/box-volumes?limit=100')).json();
    expect(list.data.some((x: { volume_id: string }) => x.volume_id === v.volume_id)).toBe(false);
    const dirs = await svc.api(`/v1/box-volumes/${v.volume_id}/directories`);
    expect(await errorOf(dirs)).toMatchObject({ type: 'not_found_error', code: 'not_found' });
    const fresh = await (await create('gone')).json();
    expect(fresh.volume_id).not.toBe(v.volume_id);
  });

  it('delete → 409 while a live box mounts it (default check reads the boxes table, and the hook replaces it)', async () => {
    const v = await (await create('mounted')).json();
    const orgId = (await svc.ctx.repos.orgs.ensureDefault()).id;
    const now = new Date().toISOString();
    await svc.ctx.db.run('INSERT INTO apps (id, org_id, name, created_at) VALUES (?, ?, ?, ?)', ['app_mnt', orgId, 'mnt', now]);
    await svc.ctx.db.run(
      `INSERT INTO boxes (id, org_id, app_id, name, image, status, visibility, created_by_key_id, vcpu_count, memory_mib, disk_gib, volume_mounts, created_at, updated_at)
         VALUES ('box_mnt', ?, 'app_mnt', 'mnt', 'debian', 'running', 'org', 'k', 1, 512, 4, ?, ?, ?)`,
      [orgId, JSON.stringify([{ volume_id: v.volume_id, mount_path: '/data' }]), now, now],
    );
    const res = await svc.api(`/v1/box-volumes/${v.volume_id}`, { method: 'DELETE' });
    expect(res.status).toBe(409);
    expect(await errorOf(res)).toMatchObject({ type: 'conflict_error', code: 'failed_precondition' });
    await svc.ctx.db.run("UPDATE boxes SET status = 'terminated' WHERE id = 'box_mnt'");
    svc.ctx.services.volumes.setMountChecker(async (_org, id) => (id === v.volume_id ? ['box_other'] : []));
    expect((await svc.api(`/v1/box-volumes/${v.volume_id}`, { method: 'DELETE' })).status).toBe(409);
    svc.ctx.services.volumes.setMountChecker(async () => []);
    expect((await svc.api(`/v1/box-volumes/${v.volume_id}`, { method: 'DELETE' })).status).toBe(200);
  });
});
