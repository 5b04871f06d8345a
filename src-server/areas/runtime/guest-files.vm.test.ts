/**
 * Guest-setup files with a real microVM (TCG here): a restore or a fork writes only the
 * files whose content changed since the VM last got them (guest-files.ts). The guest
 * comes back exactly as saved, so a file edited inside the box stays edited while its
 * setup content is unchanged, and a changed setup file (a rotated CA) is written; a cold
 * boot forgets the record.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GuestFile, TemplateShape, VmConfig } from '../boxes/runtime-port.js';
import { boxFolder, readState } from './box-folder.js';
import { execText } from './exec-text.js';
import { QemuBoxRuntime } from './qemu-box-runtime.js';
import { agentOf, testImageCache } from './test-support/vm-image.js';

const VM_TIMEOUT = 600_000;
const shape: TemplateShape = { image: 'debian', vcpus: 1, memoryMib: 256, diskGib: 2 };
let dataDir: string;
let rt: QemuBoxRuntime;

beforeAll(() => {
  testImageCache();
  dataDir = fs.mkdtempSync('/tmp/bxgf-');
  rt = new QemuBoxRuntime(dataDir, { templates: true, warmPool: 0 });
});
afterAll(async () => {
  for (const id of ['g1', 'g2']) await rt.destroy(id).catch(() => {});
  await rt.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}, VM_TIMEOUT);

const file = (content: string): GuestFile[] => [{ path: '/etc/box-setup/test.conf', content, mode: 0o644 }];
const cfg = (boxId: string, files: GuestFile[]): VmConfig => ({ boxId, hostname: boxId, ...shape, mounts: [], forwards: [], files });
const client = (id: string) => agentOf(rt, id);
const sh = async (id: string, cmd: string) => (await execText(client(id), ['/bin/sh', '-c', cmd])).stdout;

describe('guest-setup files', () => {
  it(
    'a restore writes only changed files; a fork inherits the record; a cold boot forgets it',
    async () => {
      expect(await rt.create(cfg('g1', file('v1')))).toMatchObject({ filesWritten: true });
      expect(await sh('g1', 'cat /etc/box-setup/test.conf')).toBe('v1');
      await sh('g1', 'echo edited > /etc/box-setup/test.conf');

      await rt.save('g1');
      expect(await rt.restore(cfg('g1', file('v1')))).toMatchObject({ filesWritten: true, from: 'saved_state' });
      expect(await sh('g1', 'cat /etc/box-setup/test.conf')).toBe('edited\n'); // unchanged setup: not written again

      await rt.save('g1');
      await rt.restore(cfg('g1', file('v2')));
      expect(await sh('g1', 'cat /etc/box-setup/test.conf')).toBe('v2'); // changed: written
      const record = (await readState(boxFolder(dataDir, 'g1')))!.guestFiles;
      expect(Object.keys(record ?? {})).toEqual(['/etc/box-setup/test.conf']);

      await sh('g1', 'echo edited-again > /etc/box-setup/test.conf');
      await rt.checkpoint('g1', 'cp1', true);
      expect(await rt.cloneFromCheckpoint('cp1', cfg('g2', file('v2')))).toMatchObject({ filesWritten: true, from: 'checkpoint' });
      expect(await sh('g2', 'cat /etc/box-setup/test.conf')).toBe('edited-again\n');
      expect((await readState(boxFolder(dataDir, 'g2')))!.guestFiles).toEqual(record);

      await rt.coldBoot(cfg('g2', file('v2')));
      expect((await readState(boxFolder(dataDir, 'g2')))!.guestFiles).toBeUndefined();
    },
    VM_TIMEOUT,
  );
});
