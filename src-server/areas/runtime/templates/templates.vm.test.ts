/**
 * Template store with real microVMs (TCG here): a template is built once, a clone of it
 * runs with its own identity, an image change (a new recipe hash: what a new kernel,
 * agent or rootfs produces) builds a new template and marks the old one stale, and the
 * stale one goes once the last box on it is gone.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TemplateShape } from '../../boxes/runtime-port.js';
import { waitForAgent } from '../agent-wait.js';
import { execText } from '../exec-text.js';
import { boxFolder } from '../box-folder.js';
import { MachineSource } from './machine-source.js';
import { applyIdentity, cloneTemplateFolder } from './template-clone.js';
import { TemplateStore } from './templates.js';
import type { VmConfig } from '../qemu/vm-config.js';
import { restoreVm } from '../qemu/vm-snapshot.js';
import { killVm } from '../qemu/vm.js';

const VM_TIMEOUT = 600_000;
const shape: TemplateShape = { image: 'debian', vcpus: 1, memoryMib: 256, diskGib: 2 };
let dataDir: string;
let src: MachineSource;
let base: VmConfig;
let recipe: string;

beforeAll(async () => {
  dataDir = fs.mkdtempSync('/tmp/bxtpl-rt-');
  src = new MachineSource(dataDir);
  base = await src.vmConfig({ boxId: 'x', hostname: 'box', image: 'debian', vcpus: 1, memoryMib: 256, diskGib: 2, mounts: [], forwards: [] });
  recipe = (await src.image()).recipeHash;
}, VM_TIMEOUT);
afterAll(async () => {
  for (const id of ['b1']) await killVm(boxFolder(dataDir, id)).catch(() => {});
  fs.rmSync(dataDir, { recursive: true, force: true });
}, VM_TIMEOUT);

describe('templates', () => {
  let oldId: string;

  it(
    'builds once (concurrent callers share the build) and clones run with their own hostname',
    async () => {
      const [a, b] = await Promise.all([src.store.ensure(shape, base, recipe), src.store.ensure(shape, base, recipe)]);
      expect(a.templateId).toBe(b.templateId);
      oldId = a.templateId;
      const folder = boxFolder(dataDir, 'b1');
      await cloneTemplateFolder(a, folder, { hostname: 'b1' });
      await restoreVm(folder);
      const agent = await waitForAgent(folder, { afterRestore: true });
      await applyIdentity(agent, 'b1');
      expect((await execText(agent, ['/bin/sh', '-c', 'hostname; cat /etc/hostname'])).stdout).toBe('b1\nb1\n');
      agent.close();
      const [t] = await src.store.list();
      expect(t).toMatchObject({ templateId: oldId, state: 'ready', boxes: 1 });
      expect(t!.bytes).toBeGreaterThan(0);
    },
    VM_TIMEOUT,
  );

  it(
    'an image change builds a new template; the old one is stale, kept while used, removed after',
    async () => {
      const next = new TemplateStore(dataDir); // the service after the image changed
      const fresh = await next.ensure(shape, base, `${recipe}-changed`);
      expect(fresh.templateId).not.toBe(oldId);
      const byId = Object.fromEntries((await next.list()).map((t) => [t.templateId, t]));
      expect(byId[fresh.templateId]).toMatchObject({ state: 'ready', boxes: 0 });
      expect(byId[oldId]).toMatchObject({ state: 'stale', boxes: 1 });
      expect(await next.remove(oldId)).toBe('in_use');
      await next.collectGarbage();
      expect(fs.existsSync(path.join(dataDir, 'templates', oldId, 'ram'))).toBe(true);
      await killVm(boxFolder(dataDir, 'b1'));
      fs.rmSync(boxFolder(dataDir, 'b1').dir, { recursive: true });
      await next.collectGarbage();
      expect(fs.existsSync(path.join(dataDir, 'templates', oldId))).toBe(false);
      expect((await next.list()).map((t) => t.templateId)).toEqual([fresh.templateId]);
    },
    VM_TIMEOUT,
  );
});
