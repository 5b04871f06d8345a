/**
 * Warm templates with real microVMs (QEMU, TCG here) through the HTTP API: boxes created
 * as clones of the template (exec, unique identity), 8 at once, deletion refused while
 * used, fork of a sleeping box, kill -9 of one clone, and a service restart with clones
 * running. One service and one template for the whole file.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService, terminateBoxes } from '../../test-support/harness.js';

const VM_TIMEOUT = 600_000;
const execFileP = promisify(execFile);
let svc: TestService;
let dataDir: string;
let appId: string;
const ids: Record<string, string> = {};

type Ev = { type: string; data?: string; return_code?: number | null };
async function sh(id: string, command: string) {
  const res = await svc.api(`/v1/boxes/${id}/exec`, { method: 'POST', json: { command } });
  if (res.status !== 200) throw new Error(`exec: ${res.status} ${await res.text()}`);
  const events = (await res.text())
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Ev);
  return Buffer.concat(events.filter((e) => e.type === 'stdout').map((e) => Buffer.from(e.data!, 'base64'))).toString();
}
async function post(p: string, json: unknown = {}) {
  const res = await svc.api(p, { method: 'POST', json });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`${p}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}
const status = async (id: string) => (await (await svc.api(`/v1/boxes/${id}`)).json()).status;
const templates = async () =>
  (await (await svc.api('/v1/templates')).json()).data as { template_id: string; state: string; boxes: number; size: string; bytes: number }[];
/**
 * Fingerprint of a template's files (RAM and frozen disk): must never change while clones
 * run. Hashed by a child process: reading 512 MiB in this process would stall the
 * in-process service's event loop (and its keep-alive sockets).
 */
async function templateDigest(id: string) {
  const files = ['ram', 'disk.qcow2', 'devices.bin'].map((f) => path.join(dataDir, 'templates', id, f));
  return (await execFileP('sha256sum', files)).stdout;
}

beforeAll(async () => {
  dataDir = fs.mkdtempSync('/tmp/bxtpl-');
  svc = await startTestService({ dataDir, tuning: { prepareTemplates: true } });
  appId = (await post('/v1/apps/find', { name: 'tpl', mint_if_missing: true })).id;
}, VM_TIMEOUT);
afterAll(async () => {
  await terminateBoxes(svc);
  await svc.close();
}, VM_TIMEOUT);

describe('boxes cloned from a warm template', () => {
  it(
    '8 concurrent creates all run, each its own hostname, machine-id, RNG and SSH host keys',
    async () => {
      const names = Array.from({ length: 8 }, (_, i) => `c${i + 1}`);
      const boxes = await Promise.all(names.map((name) => post('/v1/boxes', { app_id: appId, name })));
      for (const b of boxes) {
        expect(b.status).toBe('running');
        ids[b.name] = b.box_id;
      }
      const list = await templates();
      expect(list).toHaveLength(1);
      expect(list[0]).toMatchObject({ state: 'ready', size: 's', boxes: 8 });
      const seen = { id: new Set<string>(), rnd: new Set<string>(), key: new Set<string>() };
      for (const name of ['c1', 'c2', 'c3']) {
        const out = (
          await sh(
            ids[name]!,
            'hostname; cat /etc/hostname /etc/machine-id; head -c 32 /dev/urandom | od -An -tx1 | tr -d " \\n"; echo; ssh-keygen -q -t ed25519 -N "" -f /etc/ssh/ssh_host_ed25519_key && ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub',
          )
        ).split('\n');
        expect(out[0]).toBe(name);
        expect(out[1]).toBe(name);
        expect(out[2]).toMatch(/^[0-9a-f]{32}$/);
        seen.id.add(out[2]!);
        seen.rnd.add(out[3]!);
        seen.key.add(out[4]!.split(' ')[1]!);
      }
      expect([seen.id.size, seen.rnd.size, seen.key.size]).toEqual([3, 3, 3]);
    },
    VM_TIMEOUT,
  );

  it(
    'refuses to delete the template while boxes build on it',
    async () => {
      const [t] = await templates();
      const res = await svc.api(`/v1/templates/${t!.template_id}`, { method: 'DELETE' });
      expect(res.status).toBe(409);
      expect((await res.json()).error.code).toBe('template_in_use');
      expect(fs.existsSync(path.join(dataDir, 'templates', t!.template_id, 'ram'))).toBe(true);
    },
    VM_TIMEOUT,
  );

  it(
    'forks a sleeping clone without waking it; files written before the sleep are in both',
    async () => {
      await sh(ids.c2!, 'echo kept > /root/before-sleep && sync');
      await post(`/v1/boxes/${ids.c2}/sleep`);
      expect(await status(ids.c2!)).toBe('sleeping');
      const fork = await post(`/v1/boxes/${ids.c2}/fork`, { name: 'f1' });
      ids.f1 = fork.boxes[0].box_id;
      expect(fork.boxes[0].status).toBe('running');
      expect(await status(ids.c2!)).toBe('sleeping');
      expect(await sh(ids.f1!, 'cat /root/before-sleep; hostname')).toBe('kept\nf1\n');
      await post(`/v1/boxes/${ids.c2}/resume`).catch(() => post(`/v1/boxes/${ids.c2}/wake_at`, { wake_at: null }));
    },
    VM_TIMEOUT,
  );

  it(
    'kill -9 of one clone harms no other box and not the template',
    async () => {
      const [t] = await templates();
      const before = await templateDigest(t!.template_id);
      const pid = Number(fs.readFileSync(path.join(dataDir, 'boxes', ids.c3!, 'qemu.pid'), 'utf8'));
      await sh(ids.c4!, 'echo c4-alive > /tmp/mark');
      process.kill(pid, 'SIGKILL');
      for (let i = 0; i < 100 && (await status(ids.c3!)) === 'running'; i++) await new Promise((r) => setTimeout(r, 100));
      expect(await status(ids.c3!)).not.toBe('running');
      expect(await sh(ids.c4!, 'cat /tmp/mark')).toBe('c4-alive\n');
      expect(await sh(ids.c5!, 'hostname')).toBe('c5\n');
      const fresh = await post('/v1/boxes', { app_id: appId, name: 'after-kill' });
      expect(await sh(fresh.box_id, 'hostname')).toBe('after-kill\n');
      expect(await templateDigest(t!.template_id)).toBe(before);
    },
    VM_TIMEOUT,
  );

  it(
    'a service restart re-adopts running clones (memory intact)',
    async () => {
      await sh(ids.c6!, 'echo in-memory > /dev/shm/mark');
      await svc.close();
      svc = await startTestService({ dataDir });
      // adoption runs after the start (an exec waits for it); then the box is running again
      expect(await sh(ids.c6!, 'cat /dev/shm/mark; hostname')).toBe('in-memory\nc6\n');
      expect(await status(ids.c6!)).toBe('running');
      expect((await templates())[0]!.state).toBe('ready');
    },
    VM_TIMEOUT,
  );
});
