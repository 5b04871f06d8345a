/**
 * Issue 28, adoption from reality: a restart on top of VMs the last service left behind
 * asks each QEMU its run state and its agent's health. Real VMs, left in each state a
 * crash can leave them in: running, stopped (`paused`: a checkpoint or pause cut short),
 * `postmigrate` (a save whose VM was never quit) and unresponsive (QEMU stopped by SIGSTOP).
 * A box never shows `running` without an agent that answers; the continued ones keep their
 * memory, the unresponsive one restarts from its disk.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../../test-support/harness.js';
import { readExecStream } from '../../../test-support/exec-stream.js';
import { killUnder } from '../../../test-support/spawned-service.js';
import { ADOPTING_MESSAGE } from '../../boxes/reconcile.js';
import { boxFolder, livePid } from '../box-folder.js';
import { QmpClient } from './qmp.js';
import { testImageCache } from '../test-support/vm-image.js';
import { hasEnded, readProcStat } from '../../../kernel/util/proc-stat.js';

const VM_TIMEOUT = 600_000;
const dataDir = fs.mkdtempSync('/tmp/bxadopt-');
let svc: TestService | undefined;
const ids: Record<string, string> = {};
const NAMES = ['running', 'paused', 'postmigrate', 'unresponsive'] as const;
const logs: string[] = [];
const log = { info: (m: unknown) => logs.push(String(m)), warn: (m: unknown) => logs.push(String(m)), error: (m: unknown) => logs.push(String(m)) };

async function post(p: string, json: unknown = {}) {
  const res = await svc!.api(p, { method: 'POST', json });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`${p}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}
async function sh(id: string, command: string) {
  const res = await svc!.api(`/v1/boxes/${id}/exec`, { method: 'POST', json: { command } });
  expect(res.status).toBe(200);
  return readExecStream(await res.text()).stdout;
}

beforeAll(async () => {
  testImageCache();
  svc = await startTestService({ dataDir, log });
  const app = (await post('/v1/apps/find', { name: 'adopt', mint_if_missing: true })).id;
  for (const name of NAMES) {
    ids[name] = (await post('/v1/boxes', { app_id: app, name })).box_id;
    await sh(ids[name]!, `echo ${name} > /run/marker`);
  }
  await svc.close(); // the VMs keep running, as after a crash or `on_quit: leave_running`
  svc = undefined;
  for (const name of ['paused', 'postmigrate'] as const) {
    const qmp = await QmpClient.connect(boxFolder(dataDir, ids[name]!).qmpSock);
    if (name === 'paused') await qmp.execute('stop');
    else {
      await qmp.execute('migrate', { uri: 'exec:cat > /dev/null' });
      const deadline = Date.now() + 60_000;
      while ((await qmp.execute<{ status: string }>('query-status')).status !== 'postmigrate') {
        if (Date.now() > deadline) throw new Error('the migration did not finish');
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    qmp.close();
  }
  process.kill(livePid(boxFolder(dataDir, ids.unresponsive!))!, 'SIGSTOP');
}, VM_TIMEOUT);

afterAll(async () => {
  await svc?.close().catch(() => {});
  killUnder(dataDir);
  fs.rmSync(dataDir, { recursive: true, force: true });
}, VM_TIMEOUT);

it(
  'a restart takes over only VMs that run and answer: stopped and postmigrate ones are continued, an unresponsive one restarts from disk',
  async () => {
    const stuckPid = livePid(boxFolder(dataDir, ids.unresponsive!))!;
    const t0 = Date.now();
    svc = await startTestService({ dataDir, log });
    const startMs = Date.now() - t0;
    const get = async (id: string) => (await (await svc!.api(`/v1/boxes/${id}`)).json()) as { status: string; error_message: string | null };
    const status = async (id: string) => (await get(id)).status;
    // the start does not wait for the VMs (reconcile.test.ts proves it with a slow fake)
    console.log(`restart with 4 VMs left: API up in ${startMs} ms`);
    // never `running` without a working agent: each box's first operation waits for its adoption, then answers
    for (const name of ['running', 'paused', 'postmigrate'] as const) {
      expect(await sh(ids[name]!, 'cat /run/marker'), name).toBe(`${name}\n`); // its memory, not a fresh boot
      expect(await status(ids[name]!), name).toBe('running');
    }
    for (let i = 0; i < 300 && (await get(ids.unresponsive!)).error_message === ADOPTING_MESSAGE; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await status(ids.unresponsive!)).toBe('interrupted_restorable');
    expect(hasEnded(readProcStat(stuckPid)), `the stuck QEMU (pid ${stuckPid}) ended`).toBe(true);
    // its next operation boots it from its disk
    expect(await sh(ids.unresponsive!, 'cat /run/marker 2>/dev/null || echo fresh')).toBe('fresh\n');
    expect(await status(ids.unresponsive!)).toBe('running');
    expect(logs.join('\n')).toContain('its VM was postmigrate: continued, agent answered');
    expect(logs.join('\n')).toContain('its VM was paused: continued, agent answered');
    expect(logs.join('\n')).toMatch(/unresponsive\): running -> interrupted_restorable: .*stopped by a signal/);
    for (const id of Object.values(ids)) await post(`/v1/boxes/${id}/terminate`);
  },
  VM_TIMEOUT,
);
