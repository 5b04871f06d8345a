/**
 * Issue 28: a `failed` box keeps its disk reachable. Real VM: a box with a file on its
 * disk and a checkpoint fails (its VM killed and the box recorded failed, as a lost agent
 * or a failed start leaves it); its files are read, written and listed from its stopped
 * disk while it stays failed (a maintenance VM), a fork starts from its last checkpoint, and
 * a reboot starts it afresh from its disk, with the write.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService, terminateBoxes } from '../test-support/harness.js';
import { readExecStream } from '../test-support/exec-stream.js';
import { killUnder } from '../test-support/spawned-service.js';
import { boxFolder, livePid } from '../runtime/box-folder.js';
import { BoxesRepo } from './boxes-repo.js';
import { testImageCache } from '../runtime/test-support/vm-image.js';

const VM_TIMEOUT = 600_000;
const dataDir = fs.mkdtempSync('/tmp/bxfail-');
let svc: TestService;

async function post(p: string, json: unknown = {}) {
  const res = await svc.api(p, { method: 'POST', json });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`${p}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}
async function sh(id: string, command: string) {
  const res = await svc.api(`/v1/boxes/${id}/exec`, { method: 'POST', json: { command } });
  expect(res.status).toBe(200);
  return readExecStream(await res.text()).stdout;
}

beforeAll(async () => {
  testImageCache();
  svc = await startTestService({ dataDir });
}, VM_TIMEOUT);
afterAll(async () => {
  await terminateBoxes(svc);
  await svc.close();
  killUnder(dataDir);
  fs.rmSync(dataDir, { recursive: true, force: true });
}, VM_TIMEOUT);

it(
  'a failed box: its files read and written from its stopped disk, a fork from its last checkpoint, a reboot keeps the write',
  async () => {
    const app = (await post('/v1/apps/find', { name: 'failed', mint_if_missing: true })).id;
    const box = await post('/v1/boxes', { app_id: app, name: 'doomed' });
    await sh(box.box_id, 'echo kept > /root/kept.txt && sync');
    const cp = await post(`/v1/boxes/${box.box_id}/checkpoint`, {});
    // the failure: its VM gone, the box recorded failed
    process.kill(livePid(boxFolder(dataDir, box.box_id))!, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 500));
    await new BoxesRepo(svc.ctx.db).setStatus(box.box_id, 'failed', { error_message: 'The guest agent stopped answering (3 health checks failed).' });

    // its disk is reachable while it stays failed: a maintenance VM booted cold from it
    let t0 = Date.now();
    const kept = await svc.api(`/v1/boxes/${box.box_id}/files?path=/root/kept.txt`);
    expect(kept.status).toBe(200);
    expect(await kept.text()).toBe('kept\n');
    console.log(`failed box: first file read (maintenance VM boot) ${Date.now() - t0} ms`);
    t0 = Date.now();
    const put = await svc.api(`/v1/boxes/${box.box_id}/files?path=/root/rescued.txt`, { method: 'PUT', body: 'written while failed\n' });
    expect(put.status).toBe(200);
    console.log(`failed box: next write ${Date.now() - t0} ms`);
    const listing = await (await svc.api(`/v1/boxes/${box.box_id}/directories?path=/root`)).json();
    expect(listing.entries.map((e: { name: string }) => e.name)).toEqual(expect.arrayContaining(['kept.txt', 'rescued.txt']));
    expect((await (await svc.api(`/v1/boxes/${box.box_id}`)).json()).status).toBe('failed');
    expect((await svc.api(`/v1/boxes/${box.box_id}/exec`, { method: 'POST', json: { command: 'true' } })).status).toBe(409);

    // a fork of a failed box starts from its last checkpoint
    const forked = await post(`/v1/boxes/${box.box_id}/fork`, { name: 'rescued' });
    expect(forked.checkpoint_id).toBe(cp.checkpoint_id);
    const child = forked.boxes[0];
    expect(child.status).toBe('running');
    expect(await sh(child.box_id, 'cat /root/kept.txt; ls /root')).toBe('kept\nkept.txt\n');

    // the reboot stops the maintenance VM and boots the same disk: the write is there
    const rebooted = await post(`/v1/boxes/${box.box_id}/reboot`);
    expect(rebooted.status, `the reboot of the failed box: ${JSON.stringify(rebooted)}`).toBe('running');
    expect(await sh(box.box_id, 'cat /root/kept.txt /root/rescued.txt')).toBe('kept\nwritten while failed\n');
  },
  VM_TIMEOUT,
);
