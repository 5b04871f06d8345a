/**
 * A real microVM's serial console through the API (issue 15): what the guest writes to
 * ttyS0 reaches GET /v1/boxes/{id}/console, and the ?stream=1 form follows it live.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../test-support/harness.js';

let svc: TestService;
let boxId: string;

beforeAll(async () => {
  svc = await startTestService({ dataDir: fs.mkdtempSync('/tmp/bxcon-') });
  const app = await (await svc.api('/v1/apps/find', { method: 'POST', json: { name: 'console', mint_if_missing: true } })).json();
  const box = await (await svc.api('/v1/boxes', { method: 'POST', json: { app_id: app.id, name: 'serial' } })).json();
  expect(box.status).toBe('running');
  boxId = box.box_id;
}, 600_000);
afterAll(async () => {
  if (boxId) await svc.api(`/v1/boxes/${boxId}/terminate`, { method: 'POST', json: {} });
  await svc?.close();
  fs.rmSync(svc.dataDir, { recursive: true, force: true });
});

async function shell(command: string) {
  const res = await svc.api(`/v1/boxes/${boxId}/exec`, { method: 'POST', json: { command } });
  expect(res.status).toBe(200);
  const exit = (await res.text())
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
    .find((e) => e.type === 'exit');
  expect(exit).toMatchObject({ status: 'succeeded', return_code: 0 });
}

it("a cloned box's console starts with where it came from: its template's boot, then its own lines (issue 28)", async () => {
  const tail = await (await svc.api(`/v1/boxes/${boxId}/console?lines=2000`)).json();
  expect(tail.data).toMatch(/^--- cloned from template tpl_[0-9a-f]+; its boot: ---\n/);
  const [boot, own] = tail.data.split('--- this box, restored from the template: ---\n');
  expect(boot).toContain('box-agent'); // the template's agent said it was ready during its boot
  expect(own).toBeDefined();
});

it('the service log tells the template build of the first box: start and reason, end and time (issue 28)', async () => {
  const page = await (await svc.api('/v1/service/log?search=template%20tpl_&limit=50')).json();
  const lines = (page.data as { message: string }[]).map((e) => e.message).join('\n');
  expect(lines).toMatch(/template tpl_[0-9a-f]+ \(debian, \d+ vCPU, \d+ MiB\): build started: no ready template of this shape/);
  expect(lines).toMatch(/template tpl_[0-9a-f]+ \(debian, \d+ vCPU, \d+ MiB\): built in \d+\.\d s/);
});

it('what the guest writes to ttyS0 is in the console, and the stream follows it', async () => {
  await shell('echo "console-marker-one from $(hostname)" > /dev/ttyS0');
  const deadline = Date.now() + 20_000;
  let tail = { data: '' };
  while (!tail.data.includes('console-marker-one') && Date.now() < deadline) {
    tail = await (await svc.api(`/v1/boxes/${boxId}/console?lines=200`)).json();
    await new Promise((r) => setTimeout(r, 300));
  }
  expect(tail.data).toContain('console-marker-one from serial');

  const ac = new AbortController();
  const res = await svc.api(`/v1/boxes/${boxId}/console?stream=1&lines=1`, { signal: ac.signal });
  expect(res.headers.get('content-type')).toContain('text/event-stream');
  const dec = new TextDecoder();
  let seen = '';
  let wrote = false;
  const timer = setTimeout(() => ac.abort(), 30_000);
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      seen += dec.decode(chunk, { stream: true });
      if (!wrote && seen.includes('event: chunk')) {
        wrote = true;
        await shell('echo console-marker-two > /dev/ttyS0');
      }
      if (seen.includes('console-marker-two')) break;
    }
  } catch (e) {
    if (!ac.signal.aborted) throw e;
  } finally {
    clearTimeout(timer);
    ac.abort();
  }
  expect(seen).toContain('console-marker-two');
}, 120_000);
