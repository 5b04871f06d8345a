/**
 * The stock `e2b` SDK, unchanged, against the service with real microVMs: pointed at it the
 * way its users do (E2B_API_URL, E2B_SANDBOX_URL, E2B_API_KEY). Few boxes: sandbox A carries
 * commands, files and pause/connect; B times out into autoPause; a fork and a sandbox from
 * a snapshot of A; the code interpreter runs on A.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommandExitError, FileNotFoundError, Sandbox, SandboxNotFoundError, type FilesystemEvent } from 'e2b';
import { pointE2BAt, killSandboxesAndClose } from './test-support/e2b-env.js';
import { startTestService, type TestService } from '../../test-support/harness.js';

const VM = 300_000;
let svc: TestService;
let a: Sandbox;

const waitFor = async <T>(what: string, f: () => Promise<T | undefined>, ms = 60_000): Promise<T> => {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
};

beforeAll(async () => {
  svc = await startTestService({ dataDir: fs.mkdtempSync('/tmp/bxe2bvm-') });
  pointE2BAt(svc);
  // The first create of a data dir builds its warm template: minutes under TCG, past the SDK's 60 s default.
  a = await Sandbox.create({ metadata: { suite: 'e2b-vm' }, envs: { GREETING: 'hello from envs' }, requestTimeoutMs: VM });
}, VM);
afterAll(async () => {
  await killSandboxesAndClose(svc);
}, VM);

describe('E2B SDK on real boxes', () => {
  it(
    'runs commands: output, streamed onStdout, exit errors, stdin, envs',
    async () => {
      expect((await a.commands.run('echo $GREETING; echo err >&2')).stdout).toBe('hello from envs\n');
      const chunks: Array<{ at: number; text: string }> = [];
      const t0 = Date.now();
      const r = await a.commands.run('for i in 1 2 3; do echo line$i; sleep 0.4; done', {
        onStdout: (text) => void chunks.push({ at: Date.now() - t0, text }),
      });
      expect(r.stdout).toBe('line1\nline2\nline3\n');
      expect(chunks.length).toBeGreaterThanOrEqual(2);
      expect(chunks[0]!.text).toBe('line1\n');
      expect(chunks[chunks.length - 1]!.at - chunks[0]!.at).toBeGreaterThan(500); // streamed as it happened, not at the end
      const err = await a.commands.run('echo bad >&2; exit 3').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CommandExitError);
      expect((err as CommandExitError).exitCode).toBe(3);
      expect((err as CommandExitError).stderr).toBe('bad\n');
      const cat = await a.commands.run('cat', { background: true, stdin: true });
      await cat.sendStdin('piped in\n');
      await cat.closeStdin();
      expect((await cat.wait()).stdout).toBe('piped in\n');
      expect((await a.commands.run('pwd', { cwd: '/tmp' })).stdout).toBe('/tmp\n');
    },
    VM,
  );

  it(
    'lists a background command, connects to it, kills it',
    async () => {
      const h = await a.commands.run('echo started; sleep 600', { background: true });
      const listed = await a.commands.list();
      const mine = listed.find((p) => p.pid === h.pid);
      expect(mine?.cmd).toBe('/bin/bash');
      expect(mine?.args).toEqual(['-l', '-c', 'echo started; sleep 600']);
      const again = await a.commands.connect(h.pid);
      expect(again.pid).toBe(h.pid);
      expect(await a.commands.kill(h.pid)).toBe(true);
      await expect(h.wait()).rejects.toBeInstanceOf(CommandExitError);
      expect((await a.commands.list()).some((p) => p.pid === h.pid)).toBe(false);
      expect(await a.commands.kill(h.pid)).toBe(false);
    },
    VM,
  );

  it(
    'runs a PTY',
    async () => {
      let out = '';
      const pty = await a.pty.create({ cols: 80, rows: 24, onData: (d) => void (out += Buffer.from(d).toString()) });
      await a.pty.resize(pty.pid, { cols: 100, rows: 30 });
      await a.pty.sendInput(pty.pid, new TextEncoder().encode('stty size; echo pty-$((6*7))\nexit\n'));
      await pty.wait().catch(() => {});
      expect(out).toContain('30 100');
      expect(out).toContain('pty-42');
    },
    VM,
  );

  it(
    'works with files: write, read, upload, list with depth, stat, mkdir, rename, remove, watch',
    async () => {
      const info = await a.files.write('/tmp/e2b/one.txt', 'first file');
      expect(info.path).toBe('/tmp/e2b/one.txt');
      expect(await a.files.read('/tmp/e2b/one.txt')).toBe('first file');
      await a.files.write([
        { path: '/tmp/e2b/sub/two.txt', data: 'two' },
        { path: '/tmp/e2b/sub/three.bin', data: new Uint8Array([0, 1, 2, 255]).buffer },
      ]);
      expect(Array.from(await a.files.read('/tmp/e2b/sub/three.bin', { format: 'bytes' }))).toEqual([0, 1, 2, 255]);
      const streamed = new Blob(['x'.repeat(100_000)]).stream();
      await a.files.write('/tmp/e2b/big.txt', streamed); // octet-stream upload (envd >= 0.5.7)
      expect((await a.files.getInfo('/tmp/e2b/big.txt')).size).toBe(100_000);
      expect(await a.files.makeDir('/tmp/e2b/made')).toBe(true);
      expect(await a.files.makeDir('/tmp/e2b/made')).toBe(false);
      const shallow = (await a.files.list('/tmp/e2b')).map((e) => `${e.type}:${e.name}`);
      expect(shallow).toEqual(['file:big.txt', 'dir:made', 'file:one.txt', 'dir:sub']);
      const deep = (await a.files.list('/tmp/e2b', { depth: 2 })).map((e) => e.path);
      expect(deep).toContain('/tmp/e2b/sub/two.txt');
      const st = await a.files.getInfo('/tmp/e2b/one.txt');
      expect(st).toMatchObject({ name: 'one.txt', type: 'file', size: 10, owner: 'user', permissions: '-rw-r--r--' });
      expect(st.modifiedTime!.getTime()).toBeGreaterThan(Date.now() - 600_000);
      const moved = await a.files.rename('/tmp/e2b/one.txt', '/tmp/e2b/moved/uno.txt');
      expect(moved.path).toBe('/tmp/e2b/moved/uno.txt');
      expect(await a.files.exists('/tmp/e2b/one.txt')).toBe(false);
      await a.files.remove('/tmp/e2b/sub');
      expect(await a.files.exists('/tmp/e2b/sub')).toBe(false);
      await expect(a.files.read('/tmp/e2b/nope.txt')).rejects.toBeInstanceOf(FileNotFoundError);
      await expect(a.files.getInfo('/tmp/e2b/nope.txt')).rejects.toBeInstanceOf(FileNotFoundError);
      // envd 0.6.2's file metadata (e2b-envd.vm.test.ts has the rest). The box's /tmp is a tmpfs,
      // which keeps no user xattrs under Linux 6.1: as envd on such a file system, none is answered
      expect(await a.commands.run('stat -f -c %T /tmp')).toMatchObject({ stdout: 'tmpfs\n' });
      expect((await a.files.write('/tmp/e2b/m.txt', 'x', { metadata: { k: 'v' } })).metadata).toBeUndefined();
      expect((await a.files.getInfo('/tmp/e2b/m.txt')).metadata).toBeUndefined();
      expect((await a.files.write('m.txt', 'x', { metadata: { k: 'v' } })).metadata).toEqual({ k: 'v' });
      expect((await a.files.getInfo('m.txt')).metadata).toEqual({ k: 'v' });

      const events: FilesystemEvent[] = [];
      const w = await a.files.watchDir('/tmp/e2b', (e) => void events.push(e));
      await a.commands.run('echo new > /tmp/e2b/watched.txt');
      await waitFor('a create event', async () => (events.some((e) => e.name === 'watched.txt' && e.type === 'create') ? true : undefined), 20_000);
      await w.stop();
    },
    VM,
  );

  it(
    'lists with filters and pages, reads info, sets the timeout',
    async () => {
      const info = await a.getInfo();
      expect(info).toMatchObject({ sandboxId: a.sandboxId, templateId: 'base', state: 'running', metadata: { suite: 'e2b-vm' }, cpuCount: 1, memoryMB: 512 });
      expect(info.envdVersion).toBe('0.6.4');
      await a.setTimeout(3_600_000);
      expect((await a.getInfo()).endAt.getTime()).toBeGreaterThan(Date.now() + 3_500_000);
      expect(await a.isRunning()).toBe(true);
      const b = await Sandbox.create({ metadata: { suite: 'e2b-vm', role: 'b' }, lifecycle: { onTimeout: 'pause' }, timeoutMs: 600_000, requestTimeoutMs: VM });
      await b.files.write('kept.txt', 'kept across the pause');
      const pager = Sandbox.list({ query: { metadata: { suite: 'e2b-vm' } }, limit: 1 });
      const first = await pager.nextItems();
      expect(pager.hasNext).toBe(true);
      const second = await pager.nextItems();
      expect(pager.hasNext).toBe(false);
      expect([...first, ...second].map((s) => s.sandboxId).sort()).toEqual([a.sandboxId, b.sandboxId].sort());
      expect((await Sandbox.list({ query: { metadata: { role: 'b' } } }).nextItems()).map((s) => s.sandboxId)).toEqual([b.sandboxId]);

      // b times out into a pause (autoPause), keeps its files, and connect resumes it
      await b.setTimeout(1000);
      await waitFor('b paused by its timeout', async () => ((await b.getInfo()).state === 'paused' ? true : undefined), 120_000);
      expect((await Sandbox.list({ query: { state: ['paused'] } }).nextItems()).map((s) => s.sandboxId)).toEqual([b.sandboxId]);
      expect(await b.isRunning()).toBe(false);
      const b2 = await Sandbox.connect(b.sandboxId, { timeoutMs: 600_000 });
      expect(await b2.files.read('kept.txt')).toBe('kept across the pause');
      expect(await b2.kill()).toBe(true);
      await expect(Sandbox.getInfo(b.sandboxId)).rejects.toBeInstanceOf(SandboxNotFoundError);
      expect(await Sandbox.kill(b.sandboxId)).toBe(false);
    },
    VM,
  );

  it(
    "pauses and connects with files and processes' state intact",
    async () => {
      await a.files.write('state.txt', 'before the pause');
      await a.commands.run('echo 41 > /dev/shm/counter');
      expect(await a.pause()).toBe(true);
      expect(await a.pause()).toBe(false); // already paused
      expect((await a.getInfo()).state).toBe('paused');
      await expect(a.commands.run('true')).rejects.toThrow();
      const again = await Sandbox.connect(a.sandboxId);
      expect(await again.files.read('state.txt')).toBe('before the pause');
      expect((await again.commands.run('echo $(( $(cat /dev/shm/counter) + 1 ))')).stdout).toBe('42\n'); // memory (tmpfs) kept
      expect((await again.getInfo()).state).toBe('running');
    },
    VM,
  );

  it(
    'forks and snapshots; a sandbox past its timeout is killed',
    async () => {
      await a.files.write('lineage.txt', 'from a');
      const [child] = await a.fork({ timeoutMs: 600_000, requestTimeoutMs: VM });
      expect(child).toBeInstanceOf(Sandbox);
      const c = child as Sandbox;
      expect(c.sandboxId).not.toBe(a.sandboxId);
      expect(await c.files.read('lineage.txt')).toBe('from a');
      expect((await c.commands.run('echo $GREETING')).stdout).toBe('hello from envs\n');

      const snap = await a.createSnapshot({ name: 'e2b-vm-snap' });
      expect(snap.snapshotId).toMatch(/^boxcp_/);
      expect((await Sandbox.listSnapshots({ sandboxId: a.sandboxId }).nextItems()).map((s) => s.snapshotId)).toContain(snap.snapshotId);
      await a.files.write('lineage.txt', 'changed after the snapshot');
      const fromSnap = await Sandbox.create(snap.snapshotId, { requestTimeoutMs: VM });
      expect(await fromSnap.files.read('lineage.txt')).toBe('from a');
      await fromSnap.kill();
      expect(await Sandbox.deleteSnapshot(snap.snapshotId)).toBe(true);
      expect(await Sandbox.deleteSnapshot(snap.snapshotId)).toBe(false);

      await c.setTimeout(1000);
      await waitFor(
        'the fork killed by its timeout',
        async () =>
          await c.getInfo().then(
            () => undefined,
            (e: unknown) => (e instanceof SandboxNotFoundError ? true : undefined),
          ),
        120_000,
      );
      expect(await c.isRunning()).toBe(false);
    },
    VM,
  );
});
