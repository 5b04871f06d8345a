/** DELETE /v1/images refuses while a template of the image is in use, and takes its unused templates with it. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TemplateInfo, TemplatePort } from '../boxes/runtime-port.js';
import { FakeRuntime } from '../../test-support/fake-runtime.js';
import { errorOf, startTestService, type TestService } from '../../test-support/harness.js';
import { ImageStore } from './image-store.js';
import { importOciArchive } from './oci-import.js';
import { makeTestDockerArchive } from './test-support/archive.js';

const shape = (image: string, memoryMib: number) => ({ image, vcpus: 1, memoryMib, diskGib: 4 });
const infos: TemplateInfo[] = [
  { templateId: 'tpl_01', shape: shape('bb', 512), state: 'ready', builtAt: '2026-01-01T00:00:00.000Z', bytes: 10, boxes: 1 },
  { templateId: 'tpl_02', shape: shape('bb', 1024), state: 'ready', builtAt: '2026-01-01T00:00:00.000Z', bytes: 10, boxes: 0 },
  { templateId: 'tpl_03', shape: shape('debian', 512), state: 'ready', builtAt: '2026-01-01T00:00:00.000Z', bytes: 10, boxes: 0 },
];
const removed: string[] = [];
const port: TemplatePort = {
  list: async () => infos.filter((t) => !removed.includes(t.templateId)),
  remove: async (id) => {
    const t = infos.find((i) => i.templateId === id && !removed.includes(id));
    if (!t) return 'not_found';
    if (t.boxes) return 'in_use';
    removed.push(id);
    return 'removed';
  },
  prepare: async () => {},
};
class TemplatedFake extends FakeRuntime {
  readonly templates = port;
}

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ runtime: (d) => new TemplatedFake(d), tuning: { prepareTemplates: false } });
  const archive = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'oci-')), 'a.tar');
  await makeTestDockerArchive(archive, { withCmd: false });
  await importOciArchive(new ImageStore(svc.dataDir), archive, 'bb');
}, 60_000);
afterAll(() => svc.close());

describe('DELETE /v1/images/{name} and templates', () => {
  it('is refused while a template of the image has boxes, naming the template', async () => {
    const res = await svc.api('/v1/images/bb', { method: 'DELETE' });
    expect(res.status).toBe(409);
    const err = await errorOf(res);
    expect(err).toMatchObject({ code: 'image_in_use', param: 'name' });
    expect(err.message).toContain('tpl_01');
    expect(removed).toEqual([]);
    expect((await svc.api('/v1/images/bb')).status).toBe(200);
  });

  it('deletes the image and its unused templates once no template is in use; other images keep theirs', async () => {
    infos[0]!.boxes = 0;
    const res = await svc.api('/v1/images/bb', { method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(removed.sort()).toEqual(['tpl_01', 'tpl_02']);
    expect((await svc.api('/v1/images/bb')).status).toBe(404);
  });
});
