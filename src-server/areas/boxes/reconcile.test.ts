/**
 * Issue 28, restart in under 3 s with 40 boxes running: the start does not wait for the VMs
 * it finds. A box found running is shown `interrupted_restorable` (being taken over) until its
 * agent answered, then `running`; an operation on it waits for that instead of failing or
 * booting it afresh. The fake's adoption waits on a gate the test opens (the real path is
 * runtime/adopt.vm.test.ts; the figure is `npm run bench:crash`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import type { VmConfig } from './runtime-port.js';
import { FakeRuntime } from '../../test-support/fake-runtime.js';
import { startTestService } from '../../test-support/harness.js';
import { readExecStream } from '../../test-support/exec-stream.js';
import { ADOPTING_MESSAGE } from './reconcile.js';

class SlowAdopt extends FakeRuntime {
  gate!: () => void;
  private opened = new Promise<void>((r) => (this.gate = r));
  async adopt(cfg: VmConfig) {
    await this.opened;
    this.state.set(cfg.boxId, 'running');
    return { adopted: true, note: 'running, agent answered' };
  }
}

it('a restart answers before the VMs it found are taken over; a box turns running only once its agent answered', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bxreconcile-'));
  let svc = await startTestService({ dataDir, runtime: (d) => new FakeRuntime(d) });
  const app = (await (await svc.api('/v1/apps/find', { method: 'POST', json: { name: 'r', mint_if_missing: true } })).json()).id;
  const box = await (await svc.api('/v1/boxes', { method: 'POST', json: { app_id: app, name: 'kept' } })).json();
  expect(box.status).toBe('running');
  await svc.close(); // the VM is left running, as after kill -9 of the service

  let rt!: SlowAdopt;
  const starting = startTestService({ dataDir, runtime: (d) => (rt = new SlowAdopt(d)) });
  const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the start waited for the adoption')), 10_000).unref());
  svc = await Promise.race([starting, timeout]);
  const get = async () => (await (await svc.api(`/v1/boxes/${box.box_id}`)).json()) as { status: string; error_message: string | null };
  expect(await get()).toMatchObject({ status: 'interrupted_restorable', error_message: ADOPTING_MESSAGE });

  // an exec waits for the adoption (it neither fails nor boots the box afresh)
  let settled = false;
  const exec = svc.api(`/v1/boxes/${box.box_id}/exec`, { method: 'POST', json: { command: 'echo hi' } }).finally(() => (settled = true));
  await new Promise((r) => setTimeout(r, 300));
  expect(settled).toBe(false);
  rt.gate();
  const res = await exec;
  expect(res.status).toBe(200);
  expect(readExecStream(await res.text()).stdout).toBe('hi\n');
  expect(await get()).toMatchObject({ status: 'running', error_message: null });
  expect(rt.calls.filter((c) => c.startsWith('coldBoot') || c.startsWith('restore'))).toEqual([]);
  await svc.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});
