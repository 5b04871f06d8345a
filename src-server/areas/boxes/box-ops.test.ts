import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeRuntime } from '../../test-support/fake-runtime.js';
import { errorOf, startTestService, type TestService } from '../../test-support/harness.js';

/** Issue 29: restore in place and the box file operations, on the fake runtime (the VM test: box-ops.vm.test.ts). */
let svc: TestService;
let appId: string;

beforeAll(async () => {
  svc = await startTestService({ runtime: (d) => new FakeRuntime(d) });
  appId = (await (await svc.api('/v1/apps/find', { method: 'POST', json: { name: 'ops', mint_if_missing: true } })).json()).id;
});
afterAll(() => svc.close());

const post = (p: string, json: unknown = {}) => svc.api(p, { method: 'POST', json });
const create = async (name: string) => (await (await post('/v1/boxes', { app_id: appId, name })).json()) as { box_id: string; on_checkpoint_id: string | null };
const put = (boxId: string, path: string, body: string) => svc.api(`/v1/boxes/${boxId}/files?path=${encodeURIComponent(path)}`, { method: 'PUT', body });
const get = (boxId: string, path: string) => svc.api(`/v1/boxes/${boxId}/files?path=${encodeURIComponent(path)}`);

describe('restore in place', () => {
  it('goes back to the checkpoint: a file written after it is gone, one written before is there; same box id and name', async () => {
    const box = await create('restore-me');
    expect((await put(box.box_id, '/root/before.txt', 'before')).status).toBe(200);
    const cp = await (await post(`/v1/boxes/${box.box_id}/checkpoint`, { name: 'base' })).json();
    expect((await put(box.box_id, '/root/after.txt', 'after')).status).toBe(200);
    expect((await put(box.box_id, '/root/before.txt', 'changed')).status).toBe(200);

    const res = await post(`/v1/boxes/${box.box_id}/restore`, { checkpoint_id: cp.checkpoint_id });
    expect(res.status).toBe(200);
    const restored = await res.json();
    expect(restored).toMatchObject({ box_id: box.box_id, name: 'restore-me', status: 'running', last_start: { operation: 'restore' } });
    expect(await (await get(box.box_id, '/root/before.txt')).text()).toBe('before');
    expect((await get(box.box_id, '/root/after.txt')).status).toBe(404);
    // the checkpoint stays: it can be restored again
    expect((await svc.api(`/v1/box-checkpoints/${cp.checkpoint_id}`)).status).toBe(200);
  });

  it('records the checkpoint a box stands on: taken, restored in place (an older one), started from, forked; none once it is deleted', async () => {
    const box = await create('stands-on');
    expect(box).toMatchObject({ on_checkpoint_id: null });
    const read = async (id: string) => ((await (await svc.api(`/v1/boxes/${id}`)).json()) as { on_checkpoint_id: string | null }).on_checkpoint_id;
    const base = await (await post(`/v1/boxes/${box.box_id}/checkpoint`, { name: 'base' })).json();
    expect(await read(box.box_id)).toBe(base.checkpoint_id);
    const later = await (await post(`/v1/boxes/${box.box_id}/checkpoint`, { name: 'later' })).json();
    expect(await read(box.box_id)).toBe(later.checkpoint_id);

    // back to the older one: the generation stays 2, the box stands on "base"
    const restored = await (await post(`/v1/boxes/${box.box_id}/restore`, { checkpoint_id: base.checkpoint_id })).json();
    expect(restored).toMatchObject({ checkpoint_generation: 2, on_checkpoint_id: base.checkpoint_id });
    expect(await read(box.box_id)).toBe(base.checkpoint_id);
    const listed = ((await (await svc.api(`/v1/boxes?search=stands-on`)).json()) as { data: { box_id: string; on_checkpoint_id: string | null }[] }).data;
    expect(listed.find((b) => b.box_id === box.box_id)?.on_checkpoint_id).toBe(base.checkpoint_id);

    // a box from a checkpoint stands on it; a fork's child and its source on the fork's checkpoint
    const child = await (await post('/v1/boxes/from_checkpoint', { checkpoint_id: later.checkpoint_id, name: 'stands-on-child' })).json();
    expect(child).toMatchObject({ on_checkpoint_id: later.checkpoint_id });
    const fork = await (await post(`/v1/boxes/${box.box_id}/fork`, { name: 'stands-on-fork' })).json();
    expect(fork.boxes[0]).toMatchObject({ on_checkpoint_id: fork.checkpoint_id });
    expect(await read(box.box_id)).toBe(fork.checkpoint_id);

    // a deleted checkpoint is stood on by nobody
    expect((await svc.api(`/v1/box-checkpoints/${later.checkpoint_id}`, { method: 'DELETE' })).status).toBe(200);
    expect(await read(child.box_id)).toBeNull();
    expect(await read(box.box_id)).toBe(fork.checkpoint_id);
  });

  it('restores a paused box too (it runs afterwards)', async () => {
    const box = await create('restore-paused');
    const cp = await (await post(`/v1/boxes/${box.box_id}/checkpoint`, {})).json();
    expect((await post(`/v1/boxes/${box.box_id}/pause`)).status).toBe(200);
    const res = await post(`/v1/boxes/${box.box_id}/restore`, { checkpoint_id: cp.checkpoint_id });
    expect(await res.json()).toMatchObject({ status: 'running' });
  });

  it('reboots a paused or sleeping box from its disk (its saved memory dropped); it runs afterwards', async () => {
    for (const [name, op] of [
      ['reboot-paused', 'pause'],
      ['reboot-sleeping', 'sleep'],
    ]) {
      const box = await create(name!);
      expect((await post(`/v1/boxes/${box.box_id}/${op}`, {})).status).toBe(200);
      const res = await post(`/v1/boxes/${box.box_id}/reboot`, {});
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ status: 'running', last_start: { operation: 'reboot' } });
    }
  });

  it('refuses another box checkpoint, an unknown one and a malformed id, naming checkpoint_id; a terminated box is gone', async () => {
    const a = await create('restore-a');
    const b = await create('restore-b');
    const cpB = await (await post(`/v1/boxes/${b.box_id}/checkpoint`, {})).json();
    const other = await post(`/v1/boxes/${a.box_id}/restore`, { checkpoint_id: cpB.checkpoint_id });
    expect(other.status).toBe(400);
    expect(await errorOf(other)).toMatchObject({ param: 'checkpoint_id' });
    const unknown = await post(`/v1/boxes/${a.box_id}/restore`, { checkpoint_id: `boxcp_${crypto.randomUUID()}` });
    expect(unknown.status).toBe(404);
    expect(await errorOf(unknown)).toMatchObject({ param: 'checkpoint_id' });
    const bad = await post(`/v1/boxes/${a.box_id}/restore`, { checkpoint_id: 'nope' });
    expect(bad.status).toBe(400);
    expect(await errorOf(bad)).toMatchObject({ param: 'checkpoint_id' });
    expect(await errorOf(await post(`/v1/boxes/${a.box_id}/restore`, {}))).toMatchObject({ param: 'checkpoint_id' });
    expect((await svc.api(`/v1/boxes/${b.box_id}`)).status).toBe(200);
    expect((await post(`/v1/boxes/${b.box_id}/terminate`)).status).toBe(200);
    expect((await post(`/v1/boxes/${b.box_id}/restore`, { checkpoint_id: cpB.checkpoint_id })).status).toBe(404);
  });
});

describe('file operations inside a box', () => {
  it('new folder, rename, delete, with errors that name the field', async () => {
    const box = await create('files-ops');
    const base = `/v1/boxes/${box.box_id}`;
    const mk = await post(`${base}/directories`, { path: '/root/work/deep' });
    expect(mk.status).toBe(200);
    expect(await mk.json()).toMatchObject({ name: 'deep', type: 'directory' });
    const again = await post(`${base}/directories`, { path: '/root/work/deep' });
    expect(again.status).toBe(409);
    expect(await errorOf(again)).toMatchObject({ code: 'already_exists', param: 'path' });

    expect((await put(box.box_id, '/root/work/deep/note.txt', 'hello')).status).toBe(200);
    const mv = await post(`${base}/paths/move`, { from: '/root/work/deep', to: '/root/work/renamed' });
    expect(mv.status).toBe(200);
    expect(await mv.json()).toMatchObject({ name: 'renamed', type: 'directory' });
    expect(await (await get(box.box_id, '/root/work/renamed/note.txt')).text()).toBe('hello');
    expect((await svc.api(`${base}/directories?path=/root/work`).then((r) => r.json())).entries.map((e: { name: string }) => e.name)).toEqual(['renamed']);

    await post(`${base}/directories`, { path: '/root/work/taken' });
    const clash = await post(`${base}/paths/move`, { from: '/root/work/renamed', to: '/root/work/taken' });
    expect(clash.status).toBe(409);
    expect(await errorOf(clash)).toMatchObject({ param: 'to' });
    const gone = await post(`${base}/paths/move`, { from: '/root/nothing-here', to: '/root/x' });
    expect(gone.status).toBe(404);
    expect(await errorOf(gone)).toMatchObject({ param: 'from' });

    const del = (path: string, recursive?: boolean) =>
      svc.api(`${base}/paths?path=${encodeURIComponent(path)}${recursive ? '&recursive=true' : ''}`, { method: 'DELETE' });
    const full = await del('/root/work/renamed');
    expect(full.status).toBe(409);
    expect(await errorOf(full)).toMatchObject({ param: 'recursive' });
    expect(await (await del('/root/work/renamed', true)).json()).toEqual({ path: '/root/work/renamed', deleted: true });
    expect(await (await del('/root/work/taken')).json()).toEqual({ path: '/root/work/taken', deleted: true });
    const missing = await del('/root/work/taken');
    expect(missing.status).toBe(404);
    expect(await errorOf(missing)).toMatchObject({ param: 'path' });
    expect((await svc.api(`${base}/directories?path=/root/work`).then((r) => r.json())).entries).toEqual([]);

    for (const [path, why] of [
      ['/root/../etc', '..'],
      ['/', 'below'],
      ['root/x', 'absolute'],
    ]) {
      const res = await post(`${base}/directories`, { path });
      expect(res.status).toBe(400);
      const err = await errorOf(res);
      expect(err).toMatchObject({ param: 'path' });
      expect(err.message).toContain(why);
    }
    expect(await errorOf(await post(`${base}/paths/move`, { from: '/root/a', to: '/root/../../b' }))).toMatchObject({ param: 'to' });
  });
});
