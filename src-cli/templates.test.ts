/** `box template ls|rm` against the real service with a fake runtime whose template port is scripted. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TemplateInfo, TemplatePort } from '../src-server/areas/boxes/runtime-port.js';
import { FakeRuntime } from '../src-server/test-support/fake-runtime.js';
import { startTestService, type TestService } from '../src-server/test-support/harness.js';
import { runCli } from './test-support/cli.js';

const infos: TemplateInfo[] = [
  {
    templateId: 'tpl_0a0a',
    shape: { image: 'debian', vcpus: 1, memoryMib: 512, diskGib: 4 },
    state: 'ready',
    builtAt: new Date().toISOString(),
    bytes: 130 * 1024 * 1024,
    boxes: 3,
  },
  {
    templateId: 'tpl_0b0b',
    shape: { image: 'debian', vcpus: 2, memoryMib: 1024, diskGib: 8 },
    state: 'building',
    progress: { phase: 'boot', percent: 42 },
    builtAt: null,
    bytes: 0,
    boxes: 0,
  },
  {
    templateId: 'tpl_0c0c',
    shape: { image: 'debian', vcpus: 1, memoryMib: 256, diskGib: 2 },
    state: 'stale',
    builtAt: new Date().toISOString(),
    bytes: 1,
    boxes: 0,
  },
];
const port: TemplatePort = {
  list: async () => infos,
  remove: async (id) => {
    const i = infos.findIndex((t) => t.templateId === id);
    if (i < 0) return 'not_found';
    if (infos[i]!.boxes) return 'in_use';
    infos.splice(i, 1);
    return 'removed';
  },
  prepare: async () => {},
};
class TemplatedFake extends FakeRuntime {
  readonly templates = port;
}

let svc: TestService;
let env: { BOX_URL: string; BOX_API_KEY: string };
beforeAll(async () => {
  svc = await startTestService({ runtime: (d) => new TemplatedFake(d), tuning: { prepareTemplates: false } });
  env = { BOX_URL: svc.url, BOX_API_KEY: svc.key };
});
afterAll(() => svc?.close());

describe('box template', () => {
  it('ls shows size, shape, state with build progress, bytes and boxes', async () => {
    const r = await runCli(env, ['template', 'ls']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/tpl_0a0a\s+debian\s+s\s+1\/512M\/4G\s+ready\s+.*130(\.0)? MiB\s+3/);
    expect(r.stdout).toMatch(/tpl_0b0b\s+debian\s+m\s+2\/1024M\/8G\s+building boot 42%/);
    expect(r.stdout).toMatch(/tpl_0c0c\s+debian\s+custom\s+.*stale/);
  });

  it('rm refuses a used template with the service error, removes an unused one', async () => {
    const refused = await runCli(env, ['template', 'rm', 'tpl_0a0a']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('in use by 3 box');
    const ok = await runCli(env, ['template', 'rm', 'tpl_0c0c', '--json']);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout).template_id).toBe('tpl_0c0c');
    expect((await runCli(env, ['template', 'ls'])).stdout).not.toContain('tpl_0c0c');
  });
});
