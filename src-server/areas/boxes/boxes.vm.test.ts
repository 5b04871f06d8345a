/**
 * Real microVMs (QEMU; TCG on these machines) driven through the HTTP API: lifecycle,
 * memory surviving pause/resume, sleep/wake and checkpoint → new box, exec, files,
 * service restart with a running box, and a killed VM.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService, terminateBoxes } from '../../test-support/harness.js';

const VM_TIMEOUT = 240_000;
let svc: TestService;
let appId: string;
let boxId: string;
let volumeId: string;

type Ev = { type: string; data?: string; status?: string; return_code?: number | null; exec_id?: string };

async function exec(id: string, body: Record<string, unknown>) {
  const res = await svc.api(`/v1/boxes/${id}/exec`, { method: 'POST', json: body });
  if (res.status !== 200) throw new Error(`exec: ${res.status} ${await res.text()}`);
  const events = (await res.text())
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Ev);
  const text = (t: string) => Buffer.concat(events.filter((e) => e.type === t).map((e) => Buffer.from(e.data!, 'base64'))).toString();
  return { events, stdout: text('stdout'), stderr: text('stderr'), exit: events.find((e) => e.type === 'exit')! };
}
const sh = async (id: string, command: string) => (await exec(id, { command })).stdout;
const post = async (p: string, json: unknown = {}) => {
  const res = await svc.api(p, { method: 'POST', json });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`${p}: ${res.status} ${JSON.stringify(body)}`);
  return body;
};
const status = async (id: string) => (await (await svc.api(`/v1/boxes/${id}`)).json()).status;

beforeAll(async () => {
  svc = await startTestService({ dataDir: fs.mkdtempSync('/tmp/bxvm-') });
  appId = (await post('/v1/apps/find', { name: 'vm', mint_if_missing: true })).id;
  volumeId = (await post('/v1/box-volumes', { name: 'shared' })).volume_id;
  await svc.api(`/v1/box-volumes/${volumeId}/files?path=hello.txt`, { method: 'PUT', body: 'from the host\n' });
}, VM_TIMEOUT);
afterAll(async () => {
  await terminateBoxes(svc);
  await svc.close();
}, VM_TIMEOUT);

describe('a real box', () => {
  it(
    'is created running with exec ready, on the detected accelerator',
    async () => {
      const box = await post('/v1/boxes', { app_id: appId, name: 'vm1', volume_mounts: [{ volume_id: volumeId, mount_path: '/mnt/shared' }] });
      expect(box.status).toBe('running');
      boxId = box.box_id;
      expect(await sh(boxId, 'cat /mnt/shared/hello.txt; echo from-the-box > /mnt/shared/back.txt')).toBe('from the host\n');
      const back = await svc.api(`/v1/box-volumes/${volumeId}/files?path=back.txt`);
      expect(await back.text()).toBe('from-the-box\n');
      expect(await sh(boxId, '. /etc/os-release; echo $ID')).toBe('debian\n');
      expect(await sh(boxId, 'hostname')).toBe('vm1\n');
      // a clone of the warm template (its spare 9p slot carries the volume), not a cold boot
      const state = JSON.parse(fs.readFileSync(`${svc.dataDir}/boxes/${boxId}/state.json`, 'utf8'));
      expect(state.template).toMatch(/^tpl_/);
      expect(state.bootCount).toBe(0);
      // the first box with volumes may wait for its template's build: then it says so (new_template)
      expect(box.last_start.operation).toBe('create');
      expect(['template', 'new_template']).toContain(box.last_start.from);
      expect(box.last_start.ms).toBeGreaterThan(0);
      const st = await (await svc.api('/v1/status')).json();
      expect(st).toMatchObject({ runtime: 'qemu' });
      expect(['kvm', 'tcg', 'hvf']).toContain(st.accelerator);
    },
    VM_TIMEOUT,
  );

  it(
    'exec: exit codes, stderr, argv, env, cwd, stdin, timeout',
    async () => {
      const r = await exec(boxId, { command: 'echo out; echo err >&2; exit 3' });
      expect(r).toMatchObject({ stdout: 'out\n', stderr: 'err\n', exit: { status: 'failed', return_code: 3 } });
      const argv = await exec(boxId, { command: ['printf', '%s|', 'a b', '$HOME'], env: { X: 'y' } });
      expect(argv.stdout).toBe('a b|$HOME|');
      expect(await sh(boxId, 'true')).toBe('');
      const envCwd = await exec(boxId, { command: 'echo $GREETING; pwd', env: { GREETING: 'hi' }, cwd: '/tmp' });
      expect(envCwd.stdout).toBe('hi\n/tmp\n');
      const t0 = Date.now();
      const slow = await exec(boxId, { command: 'sleep 30', timeout: 2 });
      expect(slow.exit.status).toBe('timed_out');
      expect(Date.now() - t0).toBeLessThan(20_000);
      // stdin through the offset-checked endpoint, in the background
      const bg = await exec(boxId, { command: 'cat > /tmp/in.txt', open_stdin: true, background: true });
      const execId = bg.events[0]!.exec_id!;
      const put = (offset: number, data: string, eof = false) =>
        svc.api(`/v1/boxes/${boxId}/exec/${execId}/stdin?offset=${offset}${eof ? '&eof=true' : ''}`, { method: 'PUT', body: data });
      expect(await (await put(0, 'hello ')).json()).toEqual({ accepted_through: 6 });
      expect(await (await put(0, 'hello ')).json()).toEqual({ accepted_through: 6 }); // retry is harmless
      expect((await put(10, 'gap')).status).toBe(409);
      expect(await (await put(6, 'world', true)).json()).toEqual({ accepted_through: 11 });
      const waited = await post(`/v1/boxes/${boxId}/exec/${execId}/wait`);
      expect(waited).toMatchObject({ status: 'succeeded', return_code: 0 });
      expect(await sh(boxId, 'cat /tmp/in.txt')).toBe('hello world');
    },
    VM_TIMEOUT,
  );

  it(
    'files: 10 MB binary round trip is byte-identical and keeps its mode',
    async () => {
      const data = randomBytes(10 * 1024 * 1024);
      const put = await svc.api(`/v1/boxes/${boxId}/files?path=/root/data/blob.bin&mode=0640`, {
        method: 'PUT',
        body: data,
        headers: { 'content-type': 'application/octet-stream' },
      });
      expect(await put.json()).toEqual({ size_bytes: data.length });
      const get = await svc.api(`/v1/boxes/${boxId}/files?path=/root/data/blob.bin`);
      expect(get.headers.get('x-box-file-mode')).toBe(String(0o640));
      expect(Buffer.from(await get.arrayBuffer()).equals(data)).toBe(true);
      expect(await sh(boxId, 'sha256sum /root/data/blob.bin | cut -c1-64')).toBe(
        `${(await import('node:crypto')).createHash('sha256').update(data).digest('hex')}\n`,
      );
      const dir = await (await svc.api(`/v1/boxes/${boxId}/directories?path=/root/data`)).json();
      expect(dir.entries).toEqual([expect.objectContaining({ name: 'blob.bin', type: 'file', size: data.length, mode: 0o640 })]);
      expect((await svc.api(`/v1/boxes/${boxId}/files?path=/root/missing`)).status).toBe(404);
      expect((await svc.api(`/v1/boxes/${boxId}/files?path=/root/data`)).status).toBe(409);
    },
    VM_TIMEOUT,
  );

  it(
    'pause then resume keeps memory exactly: a /dev/shm file and a running process survive',
    async () => {
      await sh(boxId, 'echo kept > /dev/shm/mark; nohup sleep 1000 >/dev/null 2>&1 & echo $! > /dev/shm/pid');
      const pid = (await sh(boxId, 'cat /dev/shm/pid')).trim();
      expect((await post(`/v1/boxes/${boxId}/pause`)).status).toBe('paused');
      expect(fs.existsSync(path.join(svc.dataDir, 'boxes', boxId, 'qemu.pid'))).toBe(false); // no process while paused
      expect((await post(`/v1/boxes/${boxId}/resume`)).resume_state).toBe('running');
      expect(await sh(boxId, `cat /dev/shm/mark; kill -0 ${pid} && echo alive`)).toBe('kept\nalive\n');
      expect(await sh(boxId, 'cat /mnt/shared/hello.txt')).toBe('from the host\n'); // the volume is mounted again
      const drift = Number(await sh(boxId, 'date +%s')) - Math.floor(Date.now() / 1000);
      expect(Math.abs(drift)).toBeLessThanOrEqual(3); // the clock was set after the restore
    },
    VM_TIMEOUT,
  );

  it(
    'sleep then exec wakes the box with memory intact',
    async () => {
      expect((await post(`/v1/boxes/${boxId}/sleep`)).status).toBe('sleeping');
      expect(await sh(boxId, 'cat /dev/shm/mark')).toBe('kept\n');
      expect(await status(boxId)).toBe('running');
      const woken = await (await svc.api(`/v1/boxes/${boxId}`)).json();
      expect(woken.last_start).toMatchObject({ operation: 'resume', from: 'saved_state' });
    },
    VM_TIMEOUT,
  );

  it(
    'checkpoint → a new box with the same memory; fork of a running box diverges from it',
    async () => {
      await sh(boxId, 'echo v1 > /dev/shm/version; echo disk1 > /root/disk.txt');
      const qemuPid = () => fs.readFileSync(`${svc.dataDir}/boxes/${boxId}/qemu.pid`, 'utf8').trim();
      const pidBefore = qemuPid();
      const cp = await post(`/v1/boxes/${boxId}/checkpoint`, { name: 'v1' });
      // a template clone is checkpointed in place: same QEMU process, its volume mounted again
      expect(qemuPid()).toBe(pidBefore);
      expect(await sh(boxId, 'cat /mnt/shared/hello.txt')).toBe('from the host\n');
      expect(cp.status).toBe('ready');
      expect(cp.size_bytes).toBeGreaterThan(0);
      await sh(boxId, 'echo v2 > /dev/shm/version; echo disk2 > /root/disk.txt');
      const copy = await post('/v1/boxes/from_checkpoint', { checkpoint_id: cp.checkpoint_id, name: 'vm1-copy' });
      expect(copy.status).toBe('running');
      expect(await sh(copy.box_id, 'cat /dev/shm/version /root/disk.txt /dev/shm/mark')).toBe('v1\ndisk1\nkept\n');
      expect(await sh(boxId, 'cat /dev/shm/version /root/disk.txt')).toBe('v2\ndisk2\n');
      const fork = await post(`/v1/boxes/${boxId}/fork`, { name: 'vm1-fork' });
      const kid = fork.boxes[0].box_id;
      expect(qemuPid()).toBe(pidBefore);
      await sh(kid, 'echo child > /dev/shm/version');
      expect(await sh(boxId, 'cat /dev/shm/version')).toBe('v2\n');
      expect(await sh(kid, 'cat /dev/shm/version')).toBe('child\n');
      await post(`/v1/boxes/${copy.box_id}/terminate`);
      await post(`/v1/boxes/${kid}/terminate`);
      expect((await svc.api(`/v1/box-checkpoints/${cp.checkpoint_id}`, { method: 'DELETE' })).status).toBe(200);
      expect(await sh(boxId, 'cat /root/disk.txt')).toBe('disk2\n'); // its disk still builds on the frozen layer
    },
    VM_TIMEOUT,
  );

  it(
    'the service restarts while the box runs: the VM is adopted, memory intact',
    async () => {
      const dataDir = svc.dataDir;
      await svc.close();
      svc = await startTestService({ dataDir });
      // adoption runs after the start (an exec waits for it); then the box is running again
      expect(await sh(boxId, 'cat /dev/shm/mark')).toBe('kept\n');
      expect(await status(boxId)).toBe('running');
    },
    VM_TIMEOUT,
  );

  it(
    'a VM killed with -9 → interrupted_restorable; the next exec boots it from its disk, acknowledged writes kept',
    async () => {
      const acked = await svc.api(`/v1/boxes/${boxId}/files?path=/root/acked.txt`, { method: 'PUT', body: 'acknowledged\n' });
      expect(acked.status).toBe(200);
      const pid = Number(fs.readFileSync(path.join(svc.dataDir, 'boxes', boxId, 'qemu.pid'), 'utf8'));
      execFileSync('kill', ['-9', String(pid)]);
      let s = '';
      for (let i = 0; i < 50 && s !== 'interrupted_restorable'; i++) {
        await new Promise((r) => setTimeout(r, 200));
        s = await status(boxId);
      }
      expect(s).toBe('interrupted_restorable');
      expect(await sh(boxId, 'cat /root/acked.txt; test -e /dev/shm/mark || echo fresh-memory')).toBe('acknowledged\nfresh-memory\n');
      expect(await status(boxId)).toBe('running');
    },
    VM_TIMEOUT,
  );

  it(
    'a guest kernel panic leaves the box failed with the panic line, and the service keeps working',
    async () => {
      await svc.api(`/v1/boxes/${boxId}/exec`, { method: 'POST', json: { command: 'echo c > /proc/sysrq-trigger', background: true } }).then((r) => r.text());
      let box = { status: '', error_message: '' };
      for (let i = 0; i < 100 && box.status !== 'failed'; i++) {
        await new Promise((r) => setTimeout(r, 200));
        box = await (await svc.api(`/v1/boxes/${boxId}`)).json();
      }
      expect(box.status).toBe('failed');
      expect(box.error_message).toContain('Kernel panic');
      expect((await svc.api('/v1/whoami')).status).toBe(200);
      expect((await svc.api(`/v1/boxes/${boxId}/terminate`, { method: 'POST' })).status).toBe(200);
    },
    VM_TIMEOUT,
  );
});
