import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentClient } from './agent-client.js';
import { AGENT_BIN, buildAgent, collect, type RunningAgent, startAgent } from './test-support/agent-harness.js';

let agent: RunningAgent;
let client: AgentClient;
let root: string;

beforeAll(async () => {
  buildAgent();
  agent = await startAgent();
  client = await agent.connect();
  root = join(agent.dir, 'fs');
  mkdirSync(root);
});

afterAll(async () => {
  client?.close();
  await agent?.stop();
});

/** n bytes of a fixed pattern, produced lazily in 64 KiB chunks. */
function patternSource(n: number): Readable {
  const block = randomBytes(64 * 1024);
  let left = n;
  return new Readable({
    read() {
      if (left <= 0) return void this.push(null);
      const c = block.subarray(0, Math.min(left, block.length));
      left -= c.length;
      this.push(c);
    },
  });
}

describe('files', () => {
  it('writes a 10 MB binary file and reads it back identical, mode kept', async () => {
    const data = randomBytes(10 * 1024 * 1024);
    const path = join(root, 'deep/er/blob.bin');
    const w = await client.writeFile(path, { mode: 0o640, createParents: true }, Readable.from([data.subarray(0, 3_000_001), data.subarray(3_000_001)]));
    expect(w.sizeBytes).toBe(data.length);
    expect(statSync(path).mode & 0o7777).toBe(0o640);
    expect(readFileSync(path).equals(data)).toBe(true);
    const r = await client.readFile(path);
    expect(r.mode).toBe(0o640);
    expect(r.size).toBe(data.length);
    const back = await collect(r.stream);
    expect(back.equals(data)).toBe(true);
    expect(readdirSync(join(root, 'deep/er'))).toEqual(['blob.bin']); // no temp files left
  });

  it('replaces a file atomically; an aborted upload leaves the old content', async () => {
    const path = join(root, 'config.txt');
    writeFileSync(path, 'old');
    const failing = new Readable({
      read() {
        this.push(Buffer.alloc(200_000, 'n'));
        setTimeout(() => this.destroy(new Error('source broke')), 20);
      },
    });
    await expect(client.writeFile(path, {}, failing)).rejects.toThrow('source broke');
    await new Promise((r) => setTimeout(r, 100));
    expect(readFileSync(path, 'utf8')).toBe('old');
    expect(readdirSync(root).filter((n) => n.startsWith('.box-upload'))).toEqual([]);
    const ok = await client.writeFile(path, {}, Buffer.from('new'));
    expect(ok.sizeBytes).toBe(3);
    expect(readFileSync(path, 'utf8')).toBe('new');
    expect(statSync(path).mode & 0o7777).toBe(0o644);
  });

  it('an in-place write truncates and writes the file itself; the default replaces it with a new one', async () => {
    const path = join(root, 'machine-id');
    writeFileSync(path, 'the template machine id, longer than the new one\n');
    const inode = statSync(path).ino;
    await client.writeFile(path, { durable: false, inPlace: true, mode: 0o444 }, Buffer.from('new-id\n'));
    expect(readFileSync(path, 'utf8')).toBe('new-id\n');
    expect(statSync(path).ino).toBe(inode); // the same file: no temp file renamed over it
    expect(statSync(path).mode & 0o777).toBe(0o444);
    expect(readdirSync(root).filter((n) => n.startsWith('.box-upload'))).toEqual([]);
    await client.writeFile(join(root, 'created-in-place'), { inPlace: true }, Buffer.from('x'));
    expect(readFileSync(join(root, 'created-in-place'), 'utf8')).toBe('x');
    await client.writeFile(path, { durable: false }, Buffer.from('replaced\n'));
    expect(statSync(path).ino).not.toBe(inode);
  });

  it("keepMode: an overwrite keeps the file's mode (envd's upload), a new file gets `mode`; without it the write sets `mode`", async () => {
    const path = join(root, 'script.sh');
    writeFileSync(path, 'old');
    chmodSync(path, 0o751);
    await client.writeFile(path, { mode: 0o644, keepMode: true }, Buffer.from('#!/bin/sh\n'));
    expect(readFileSync(path, 'utf8')).toBe('#!/bin/sh\n');
    expect(statSync(path).mode & 0o7777).toBe(0o751);
    await client.writeFile(join(root, 'fresh.sh'), { mode: 0o640, keepMode: true }, Buffer.from('x'));
    expect(statSync(join(root, 'fresh.sh')).mode & 0o7777).toBe(0o640);
    await client.writeFile(path, { mode: 0o644 }, Buffer.from('y'));
    expect(statSync(path).mode & 0o7777).toBe(0o644);
  });

  it('a non-durable write replaces the file without syncing; a durable one syncs file and directory', async () => {
    const syncsDuring = async (fn: () => Promise<unknown>) => {
      const out = join(agent.dir, `strace-${Date.now()}.txt`);
      const st = spawn('strace', ['-f', '-e', 'trace=fsync,fdatasync', '-o', out, '-p', String(agent.proc.pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
      await new Promise<void>((resolve, reject) => {
        st.stderr!.on('data', (d: Buffer) => d.toString().includes('attached') && resolve());
        st.on('error', reject);
        st.on('exit', () => reject(new Error('strace ended before attaching')));
      });
      await fn();
      const gone = new Promise((r) => st.once('exit', r));
      st.kill('SIGINT');
      await gone;
      return readFileSync(out, 'utf8')
        .split('\n')
        .filter((l) => /\b(fsync|fdatasync)\(/.test(l)).length;
    };
    const path = join(root, 'identity.txt');
    writeFileSync(path, 'old');
    expect(await syncsDuring(() => client.writeFile(path, { durable: false }, Buffer.from('fast')))).toBe(0);
    expect(readFileSync(path, 'utf8')).toBe('fast');
    expect(readdirSync(root).filter((n) => n.startsWith('.box-upload'))).toEqual([]);
    expect(await syncsDuring(() => client.writeFile(path, {}, Buffer.from('safe')))).toBeGreaterThanOrEqual(2);
    expect(readFileSync(path, 'utf8')).toBe('safe');
  });

  it('maps errors to codes', async () => {
    await expect(client.readFile(join(root, 'missing'))).rejects.toMatchObject({ code: 'not_found' });
    await expect(client.readFile(root)).rejects.toMatchObject({ code: 'is_directory' });
    await expect(client.readFile('/dev/null')).rejects.toMatchObject({ code: 'invalid' });
    await expect(client.stat(join(root, 'missing'))).rejects.toMatchObject({ code: 'not_found' });
    writeFileSync(join(root, 'plain'), 'x');
    await expect(client.listDir(join(root, 'plain')).next()).rejects.toMatchObject({ code: 'not_directory' });
    await expect(client.writeFile(join(root, 'plain/sub'), { createParents: false }, Buffer.from('x'))).rejects.toMatchObject({ code: 'not_directory' });
    await expect(client.writeFile(join(root, 'nodir/f'), { createParents: false }, Buffer.from('x'))).rejects.toMatchObject({ code: 'not_found' });
    await expect(client.writeFile(root, {}, Buffer.from('x'))).rejects.toMatchObject({ code: 'is_directory' });
    await expect(client.mkdir(join(root, 'plain'))).rejects.toMatchObject({ code: 'not_directory' });
    await expect(client.stat('relative/path')).rejects.toMatchObject({ code: 'invalid' });
    const ex = client.exec({ argv: ['true'], user: 'nobody' }); // the agent survives all of it
    expect((await ex.exit).exitCode).toBe(0);
  });

  it("writes as root for a user (chownToUser): the file and the directories it creates are the user's; xattrs set, read back by --xattrs", async () => {
    const locked = join(root, 'locked');
    mkdirSync(locked, { mode: 0o755 }); // root's: nobody could not write here
    const path = join(locked, 'a/b/f.txt');
    const xattrs = { 'user.e2b.author': 'mish', 'user.e2b.purpose': 'up load' };
    expect(await client.writeFile(path, { user: 'nobody', chownToUser: true, xattrs }, Buffer.from('hi'))).toEqual({ sizeBytes: 2, xattrsSet: 2 });
    const nobody = { uid: statSync(path).uid, gid: statSync(path).gid };
    expect(nobody.uid).toBe(65534);
    for (const p of [join(locked, 'a'), join(locked, 'a/b')]) expect(statSync(p)).toMatchObject({ uid: 65534, gid: nobody.gid });
    expect(statSync(locked).uid).toBe(0); // an existing directory keeps its owner
    const dump = (...paths: string[]) => execFileSync(AGENT_BIN, ['--xattrs', ...paths]).toString();
    expect(dump(path, locked).split('\0')).toEqual([path, '2', 'author', 'mish', 'purpose', 'up load', '']);
    // a new write replaces the file: metadata not given again is gone
    expect(await client.writeFile(path, { user: 'nobody', chownToUser: true }, Buffer.from('again'))).toEqual({ sizeBytes: 5 });
    expect(dump(path)).toBe('');
    // without chownToUser the user's own permissions apply
    await expect(client.writeFile(join(locked, 'g.txt'), { user: 'nobody' }, Buffer.from('x'))).rejects.toMatchObject({ code: 'permission_denied' });
  });

  it('stats files, directories and symlinks (lstat and follow)', async () => {
    const dir = join(root, 'st');
    mkdirSync(dir);
    writeFileSync(join(dir, 'f'), 'hello');
    utimesSync(join(dir, 'f'), 1_700_000_000.25, 1_700_000_000.5);
    symlinkSync('f', join(dir, 'link'));
    const f = await client.stat(join(dir, 'f'));
    expect(f).toMatchObject({ name: 'f', type: 'file', size: 5, mode: 0o644 });
    expect(f.mtime).toBeCloseTo(1_700_000_000.5, 3);
    const l = await client.stat(join(dir, 'link'), { follow: false });
    expect(l).toMatchObject({ name: 'link', type: 'symlink', target: 'f', size: lstatSync(join(dir, 'link')).size });
    expect(await client.stat(join(dir, 'link'), { follow: true })).toMatchObject({ type: 'file', size: 5 });
    expect(await client.stat(dir)).toMatchObject({ type: 'directory', mode: 0o755 });
  });

  it('lists directories sorted, in many frames when large', async () => {
    const dir = join(root, 'many');
    await client.mkdir(join(dir, 'sub/deeper'));
    await client.mkdir(join(dir, 'sub')); // -p: existing is fine
    const names = Array.from({ length: 3000 }, (_, i) => `file-${String(i).padStart(5, '0')}-${'x'.repeat(40)}`);
    for (const n of names) writeFileSync(join(dir, n), n);
    symlinkSync('/nowhere', join(dir, 'dangling'));
    const batches = [];
    for await (const batch of client.listDir(dir)) batches.push(batch);
    // the agent sends ~48 KiB frames: the host gets the listing in pieces, in order
    expect(batches.length).toBeGreaterThan(2);
    const list = batches.flat();
    expect(list.map((e) => e.name)).toEqual([...names, 'dangling', 'sub'].sort());
    expect(list.find((e) => e.name === 'sub')).toMatchObject({ type: 'directory' });
    expect(list.find((e) => e.name === 'dangling')).toMatchObject({ type: 'symlink', target: '/nowhere' });
    expect(list.find((e) => e.name === names[0])).toMatchObject({ type: 'file', size: names[0].length });
  });

  it('reads procfs files of unknown size to the end', async () => {
    const r = await client.readFile('/proc/self/status');
    expect(r.size).toBeNull();
    expect((await collect(r.stream)).toString()).toMatch(/^Name:\s+box-agent/);
  });

  it('streams 100 MB each way without the client buffering it', async () => {
    const path = join(root, 'big.bin');
    const size = 100 * 1024 * 1024;
    global.gc?.();
    const rss0 = process.memoryUsage().rss;
    let peak = rss0;
    const probe = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const t0 = performance.now();
    const w = await client.writeFile(path, {}, patternSource(size));
    const t1 = performance.now();
    const r = await client.readFile(path);
    const hash = createHash('sha256');
    let n = 0;
    for await (const c of r.stream) {
      hash.update(c as Buffer);
      n += (c as Buffer).length;
    }
    const t2 = performance.now();
    clearInterval(probe);
    expect(w.sizeBytes).toBe(size);
    expect(n).toBe(size);
    expect(hash.digest('hex')).toBe(createHash('sha256').update(readFileSync(path)).digest('hex'));
    const growthMb = (peak - rss0) / 2 ** 20;
    console.log(
      `100 MB: write ${(100 / ((t1 - t0) / 1000)).toFixed(0)} MB/s, read ${(100 / ((t2 - t1) / 1000)).toFixed(0)} MB/s, client RSS growth ${growthMb.toFixed(1)} MB`,
    );
    expect(growthMb).toBeLessThan(64);
  });

  it('keeps execs responsive while a large transfer is in flight', async () => {
    const path = join(root, 'bulk.bin');
    let uploaded = false;
    const upload = client.writeFile(path, {}, patternSource(60 * 1024 * 1024)).then((r) => ((uploaded = true), r));
    const download = client.readFile(join(root, 'big.bin'));
    const slowReader = (async () => {
      const { stream } = await download;
      let n = 0;
      for await (const c of stream) {
        n += (c as Buffer).length;
        await new Promise((r) => setTimeout(r, 1)); // a slow consumer holds its own stream only
      }
      return n;
    })();
    const lat: number[] = [];
    for (let i = 0; i < 10; i++) {
      const t = performance.now();
      const ex = client.exec({ argv: ['echo', `x${i}`] });
      const out = await collect(ex.stdout);
      expect(out.toString()).toBe(`x${i}\n`);
      expect((await ex.exit).exitCode).toBe(0);
      lat.push(performance.now() - t);
    }
    expect(uploaded).toBe(false); // the execs really ran during the upload
    expect(Math.max(...lat)).toBeLessThan(1000);
    expect((await upload).sizeBytes).toBe(60 * 1024 * 1024);
    expect(await slowReader).toBe(100 * 1024 * 1024);
  }, 120_000);
});
