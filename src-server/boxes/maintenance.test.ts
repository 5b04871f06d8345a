/**
 * Issue 28, a failed box on the fake runtime (the real VM path: failed-recovery.vm.test.ts):
 * file calls start one maintenance VM from its disk and the box stays failed; a fork without
 * any checkpoint is a 409 naming box_id; a reboot takes the box over from the maintenance VM.
 */
import { expect, it } from 'vitest';
import { FakeRuntime } from '../test-support/fake-runtime.js';
import { errorOf, startTestService } from '../test-support/harness.js';

it('a failed box: files from one maintenance VM while it stays failed, no fork without a checkpoint, a reboot takes over', async () => {
  let rt!: FakeRuntime;
  const svc = await startTestService({ runtime: (d) => (rt = new FakeRuntime(d)) });
  try {
    const app = (await (await svc.api('/v1/apps/find', { method: 'POST', json: { name: 'm', mint_if_missing: true } })).json()).id;
    const box = await (await svc.api('/v1/boxes', { method: 'POST', json: { app_id: app, name: 'broken' } })).json();
    const id = box.box_id as string;
    expect((await svc.api(`/v1/boxes/${id}/files?path=/root/a.txt&create_parents=true`, { method: 'PUT', body: 'a\n' })).status).toBe(200);
    rt.crash(id, 'panic');
    const status = async () => (await (await svc.api(`/v1/boxes/${id}`)).json()).status;
    await expect.poll(status).toBe('failed'); // recorded as the runtime reports it

    rt.calls.length = 0;
    const reads = await Promise.all([1, 2, 3].map(() => svc.api(`/v1/boxes/${id}/files?path=/root/a.txt`).then((r) => r.text())));
    expect(reads).toEqual(['a\n', 'a\n', 'a\n']);
    expect((await svc.api(`/v1/boxes/${id}/files?path=/root/b.txt`, { method: 'PUT', body: 'b\n' })).status).toBe(200);
    expect(rt.calls.filter((c) => c.startsWith('coldBoot'))).toEqual([`coldBoot:${id}`]); // one maintenance VM for all calls
    expect(await status()).toBe('failed');

    const fork = await svc.api(`/v1/boxes/${id}/fork`, { method: 'POST', json: { name: 'copy' } });
    expect(fork.status).toBe(409);
    const e = await errorOf(fork);
    expect(e.param).toBe('box_id');
    expect(e.message).toMatch(/no checkpoint to fork from/);

    const rebooted = await (await svc.api(`/v1/boxes/${id}/reboot`, { method: 'POST', json: {} })).json();
    expect(rebooted.status).toBe('running');
    expect(await (await svc.api(`/v1/boxes/${id}/files?path=/root/b.txt`)).text()).toBe('b\n');
  } finally {
    await svc.close();
  }
});
