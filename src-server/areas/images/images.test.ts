/** Images API with the fake runtime: listing, reading, in-use and built-in deletes, the image field at create. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeRuntime } from '../../test-support/fake-runtime.js';
import { errorOf, startTestService, type TestService } from '../../test-support/harness.js';
import { ImageStore } from './image-store.js';
import { importOciArchive } from './oci-import.js';
import { makeTestDockerArchive } from './test-support/archive.js';

let svc: TestService;
let appId: string;

beforeAll(async () => {
  svc = await startTestService({ runtime: (d) => new FakeRuntime(d) });
  appId = (await (await svc.api('/v1/apps/find', { method: 'POST', json: { name: 'img', mint_if_missing: true } })).json()).id;
  const archive = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'oci-')), 'a.tar');
  await makeTestDockerArchive(archive, { withCmd: false }); // the fake runtime runs "guest" commands on the host
  await importOciArchive(new ImageStore(svc.dataDir), archive, 'bb');
}, 60_000);
afterAll(() => svc.close());

describe('images API', () => {
  it('lists the built-in image and imports, with source, digest and run config', async () => {
    const res = await svc.api('/v1/images');
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data.map((i: { name: string }) => i.name)).toEqual(['debian', 'bb']);
    expect(data[0]).toMatchObject({ source: 'builtin', base: null, boxes: [] });
    expect(data[1]).toMatchObject({ source: 'oci', base: null, boxes: [], config: { workdir: '/app', env: { GREETING: 'hello-oci' } } });
    expect(data[1].digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(data[1].size_bytes).toBeGreaterThan(100_000); // busybox is in it
  });

  it('answers 404 for an unknown image and 400 for a malformed name, in the error envelope', async () => {
    const nf = await svc.api('/v1/images/nope');
    expect(nf.status).toBe(404);
    expect((await errorOf(nf)).param).toBe('name');
    const bad = await svc.api('/v1/images/Bad%20Name');
    expect(bad.status).toBe(400);
    expect((await errorOf(bad)).param).toBe('name');
  });

  it('refuses an unknown image at create, naming the field and the choices', async () => {
    const res = await svc.api('/v1/boxes', { method: 'POST', json: { app_id: appId, name: 'x', image: 'ghost' } });
    expect(res.status).toBe(400);
    const err = await errorOf(res);
    expect(err.param).toBe('image');
    expect(err.message).toContain('debian, bb');
  });

  it('refuses to delete the built-in image and an image a box uses; deletes it once the box is gone', async () => {
    expect((await errorOf(await svc.api('/v1/images/debian', { method: 'DELETE' }))).code).toBe('builtin_image');
    const box = await (await svc.api('/v1/boxes', { method: 'POST', json: { app_id: appId, name: 'user', image: 'bb' } })).json();
    expect(box).toMatchObject({ image: 'bb' });
    expect((await (await svc.api('/v1/images/bb')).json()).boxes).toEqual([box.box_id]);
    const del = await svc.api('/v1/images/bb', { method: 'DELETE' });
    expect(del.status).toBe(409);
    const err = await errorOf(del);
    expect(err.code).toBe('image_in_use');
    expect(err.message).toContain(box.box_id);
    await svc.api(`/v1/boxes/${box.box_id}/terminate`, { method: 'POST' });
    const ok = await svc.api('/v1/images/bb', { method: 'DELETE' });
    expect(ok.status).toBe(200);
    expect((await svc.api('/v1/images/bb')).status).toBe(404);
    expect(fs.readdirSync(path.join(svc.dataDir, 'user-images', 'blobs'))).toEqual([]);
  });
});
