/** Template routes over real HTTP with a fake runtime whose template port records calls. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TemplateInfo, TemplatePort } from '../boxes/runtime-port.js';
import { Template, TemplateList } from '@box/contract/templates';
import { errorOf, startTestService, type TestService } from '../../test-support/harness.js';
import { FakeRuntime } from '../../test-support/fake-runtime.js';

const infos: TemplateInfo[] = [
  {
    templateId: 'tpl_aaaa',
    shape: { image: 'debian', vcpus: 1, memoryMib: 512, diskGib: 4 },
    state: 'ready',
    builtAt: '2026-01-01T00:00:00.000Z',
    bytes: 1000,
    boxes: 2,
  },
  {
    templateId: 'tpl_bbbb',
    shape: { image: 'debian', vcpus: 2, memoryMib: 768, diskGib: 4 },
    state: 'building',
    progress: { phase: 'boot', percent: 10 },
    builtAt: null,
    bytes: 0,
    boxes: 0,
  },
  {
    templateId: 'tpl_cccc',
    shape: { image: 'debian', vcpus: 2, memoryMib: 1024, diskGib: 8 },
    state: 'stale',
    builtAt: '2026-01-01T00:00:00.000Z',
    bytes: 5,
    boxes: 0,
  },
];
const removed: string[] = [];
const port: TemplatePort = {
  list: async () => infos,
  remove: async (id) => {
    const t = infos.find((i) => i.templateId === id);
    if (!t) return 'not_found';
    if (t.state === 'building') return 'building';
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
});
afterAll(() => svc.close());

describe('GET /v1/templates', () => {
  it('lists every template with size name, state, progress, bytes and boxes', async () => {
    const res = await svc.api('/v1/templates');
    expect(res.status).toBe(200);
    const body = TemplateList.parse(await res.json());
    expect(body.data.map((t) => [t.template_id, t.size, t.state])).toEqual([
      ['tpl_aaaa', 's', 'ready'],
      ['tpl_bbbb', 'custom', 'building'],
      ['tpl_cccc', 'm', 'stale'],
    ]);
    expect(body.data[0]).toMatchObject({
      image: 'debian',
      vcpu_count: 1,
      memory_mib: 512,
      disk_gib: 4,
      bytes: 1000,
      boxes: 2,
      built_at: '2026-01-01T00:00:00.000Z',
    });
    expect(body.data[1]!.progress).toEqual({ phase: 'boot', percent: 10 });
  });

  it('needs an API key', async () => {
    const res = await fetch(`${svc.url}/v1/templates`);
    expect(res.status).toBe(401);
  });
});

describe('DELETE /v1/templates/{id}', () => {
  it('refuses a template boxes build on (409, nothing removed)', async () => {
    const res = await svc.api('/v1/templates/tpl_aaaa', { method: 'DELETE' });
    expect(res.status).toBe(409);
    const e = await errorOf(res);
    expect(e).toMatchObject({ code: 'template_in_use', param: 'template_id' });
    expect(e.message).toContain('2 box');
    expect(removed).toEqual([]);
  });

  it('refuses one being built', async () => {
    const res = await svc.api('/v1/templates/tpl_bbbb', { method: 'DELETE' });
    expect(res.status).toBe(409);
    expect((await errorOf(res)).code).toBe('template_building');
  });

  it('removes an unused one and answers it', async () => {
    const res = await svc.api('/v1/templates/tpl_cccc', { method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(Template.parse(await res.json()).template_id).toBe('tpl_cccc');
    expect(removed).toEqual(['tpl_cccc']);
  });

  it('answers 404 for an unknown id and 400 naming the field for a malformed one', async () => {
    expect((await svc.api('/v1/templates/tpl_dddd', { method: 'DELETE' })).status).toBe(404);
    const bad = await svc.api('/v1/templates/nope', { method: 'DELETE' });
    expect(bad.status).toBe(400);
    expect((await errorOf(bad)).param).toBe('template_id');
  });
});
