import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';

/**
 * Issue 28: an idempotent answer is recorded durably before it is sent. kill -9 of the
 * service right after the record (the answer never left) and right after the send; either
 * way, the retry under the same key after a restart replays the one create that ran:
 * same box, `Idempotent-Replayed: true`, no second box.
 */
const KEY = 'bxk_idem_crash_test_key_00000000000000000';
const CHILD = path.resolve(__dirname, '../../test-support/crash-child.ts');
const children: ChildProcess[] = [];
const dirs: string[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function start(dataDir: string, crashAt?: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dataDir, KEY], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, BOX_CRASH_AT: crashAt ?? '' },
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /URL (\S+)/.exec(out);
      if (m) resolve({ url: m[1]!, child });
    });
    child.once('exit', (code) => reject(new Error(`service exited (${code}) before listening`)));
  });
}

const api = (url: string, p: string, init: RequestInit = {}) =>
  fetch(`${url}${p}`, { ...init, headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', ...init.headers } });

for (const crashAt of ['record', 'send'] as const) {
  it(`kill -9 right after the ${crashAt === 'record' ? 'record, before the answer is sent' : 'answer is sent'}: the retry replays the one create`, async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'box-idem-crash-'));
    dirs.push(dataDir);
    let svc = await start(dataDir);
    const app = (await (await api(svc.url, '/v1/apps/find', { method: 'POST', body: JSON.stringify({ name: 'idem', mint_if_missing: true }) })).json()).id;
    svc.child.kill('SIGKILL');
    await new Promise((r) => svc.child.once('exit', r));

    svc = await start(dataDir, crashAt);
    const create = () =>
      api(svc.url, '/v1/boxes', { method: 'POST', headers: { 'Idempotency-Key': 'create-1' }, body: JSON.stringify({ app_id: app, name: 'once' }) });
    const gone = new Promise((r) => svc.child.once('exit', r));
    const first = await create().then(
      async (r) => ({ status: r.status, body: await r.json().catch(() => null) }),
      () => null, // the connection closed without an answer
    );
    await gone;
    if (crashAt === 'record') expect(first).toBeNull();
    else expect(first?.status).toBe(200);

    svc = await start(dataDir);
    const retry = await create();
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    const box = await retry.json();
    if (first) expect(box.box_id).toBe(first.body.box_id);
    const list = await (await api(svc.url, '/v1/boxes?limit=100')).json();
    expect(list.data.map((b: { name: string }) => b.name)).toEqual(['once']);
    svc.child.kill('SIGKILL');
  }, 240_000); // three service starts and a box create: 24-35 s at load 17, over 60 s in a loaded CI run
}
