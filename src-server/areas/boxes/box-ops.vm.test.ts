/**
 * Issue 29 on a real microVM (QEMU; TCG here): restore in place goes back to the
 * checkpoint's disk and memory (a file written after it is gone, one written before is
 * there; a tmpfs file, which lives only in RAM, too), and the box file operations
 * (new folder, rename, delete) run in the real guest, and a 20,000-entry directory is
 * streamed.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, startTestService, type TestService, terminateBoxes } from '../../test-support/harness.js';
import { expectStreamedListing } from '../../test-support/listing.js';
import { readExecStream } from '../../test-support/exec-stream.js';

const VM_TIMEOUT = 300_000;
let svc: TestService;
let appId: string;

async function sh(id: string, command: string): Promise<string> {
  const res = await svc.api(`/v1/boxes/${id}/exec`, { method: 'POST', json: { command } });
  if (res.status !== 200) throw new Error(`exec: ${res.status} ${await res.text()}`);
  return readExecStream(await res.text()).stdout;
}
const post = async (p: string, json: unknown = {}) => {
  const res = await svc.api(p, { method: 'POST', json });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`${p}: ${res.status} ${JSON.stringify(body)}`);
  return body;
};

beforeAll(async () => {
  svc = await startTestService({ dataDir: fs.mkdtempSync('/tmp/bxops-') });
  appId = (await post('/v1/apps/find', { name: 'vm', mint_if_missing: true })).id;
}, VM_TIMEOUT);
afterAll(async () => {
  await terminateBoxes(svc);
  await svc.close();
}, VM_TIMEOUT);

describe('a real box', () => {
  it(
    'restores in place to its checkpoint: disk and memory as they were, later writes gone; then file operations in the guest',
    async () => {
      const box = await post('/v1/boxes', { app_id: appId, name: 'restore-vm' });
      const id = box.box_id as string;
      expect(box.status).toBe('running');
      await sh(id, 'echo before > /root/before.txt; echo in-ram > /dev/shm/mem.txt; sync');
      const machineId = await sh(id, 'cat /etc/machine-id');
      const cp = await post(`/v1/boxes/${id}/checkpoint`, { name: 'base' });
      await sh(id, 'echo after > /root/after.txt; echo changed > /root/before.txt; echo later > /dev/shm/later.txt; rm /dev/shm/mem.txt; sync');

      const restored = await post(`/v1/boxes/${id}/restore`, { checkpoint_id: cp.checkpoint_id });
      expect(restored).toMatchObject({
        box_id: id,
        name: 'restore-vm',
        status: 'running',
        last_start: { operation: 'restore' },
        on_checkpoint_id: cp.checkpoint_id,
      });
      const seen = await sh(
        id,
        'cat /root/before.txt; cat /dev/shm/mem.txt; [ -e /root/after.txt ] && echo after-present || echo after-gone; [ -e /dev/shm/later.txt ] && echo later-present || echo later-gone',
      );
      expect(seen).toBe('before\nin-ram\nafter-gone\nlater-gone\n');
      // it is the same machine: its machine-id stays; a fork of the same checkpoint is another one
      expect(await sh(id, 'cat /etc/machine-id')).toBe(machineId);
      const fork = (await post(`/v1/boxes/from_checkpoint`, { checkpoint_id: cp.checkpoint_id, name: 'restore-vm-fork' })) as {
        box_id: string;
        on_checkpoint_id: string;
      };
      expect(fork).toMatchObject({ on_checkpoint_id: cp.checkpoint_id });
      const forkId = await sh(fork.box_id, 'cat /etc/machine-id');
      expect(forkId).toMatch(/^[0-9a-f]{32}\n$/);
      expect(forkId).not.toBe(machineId);

      // file operations in the real guest
      const base = `/v1/boxes/${id}`;
      expect(await post(`${base}/directories`, { path: '/root/new folder/x' })).toMatchObject({ name: 'x', type: 'directory' });
      expect(await post(`${base}/paths/move`, { from: '/root/before.txt', to: '/root/new folder/moved.txt' })).toMatchObject({
        name: 'moved.txt',
        type: 'file',
        size: 7,
      });
      const full = await svc.api(`${base}/paths?path=${encodeURIComponent('/root/new folder')}`, { method: 'DELETE' });
      expect(full.status).toBe(409);
      expect(await errorOf(full)).toMatchObject({ param: 'recursive' });
      const del = await svc.api(`${base}/paths?path=${encodeURIComponent('/root/new folder')}&recursive=true`, { method: 'DELETE' });
      expect(await del.json()).toEqual({ path: '/root/new folder', deleted: true });
      expect(await sh(id, '[ -e "/root/new folder" ] && echo present || echo gone; [ -e /root/before.txt ] && echo b || echo nob')).toBe('gone\nnob\n');

      // a large directory is streamed from the guest as the agent sends it: chunked, no
      // whole body built on the host, complete and sorted (issue 28: bounded memory)
      await sh(id, 'mkdir /tmp/many && cd /tmp/many && seq -f "f%05g" 0 19999 | xargs touch');
      await expectStreamedListing(await svc.api(`${base}/directories?path=/tmp/many`), 20_000, 'f00000');
      // errors still come before any byte of a listing, in the envelope, naming the field
      const missing = await svc.api(`${base}/directories?path=/tmp/nowhere`);
      expect(missing.status).toBe(404);
      expect(await errorOf(missing)).toMatchObject({ param: 'path' });
    },
    VM_TIMEOUT * 2,
  );
});
