import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, startTestService, type TestService } from '../../test-support/harness.js';

let svc: TestService;
let vol: string;
let root: string;
beforeAll(async () => {
  svc = await startTestService({ tuning: { volumeFileMaxBytes: 8 * 1024 * 1024 } });
  vol = (await (await svc.api('/v1/box-volumes', { method: 'POST', json: { name: 'browse' } })).json()).volume_id;
  root = path.join(svc.dataDir, 'volumes', vol, 'data');
  fs.mkdirSync(path.join(root, 'dir/sub'), { recursive: true });
  fs.writeFileSync(path.join(root, 'dir/b.txt'), 'hello');
  fs.chmodSync(path.join(root, 'dir/b.txt'), 0o640);
  fs.writeFileSync(path.join(root, 'dir/a.bin'), Buffer.alloc(1234));
  fs.symlinkSync('b.txt', path.join(root, 'dir/link'));
  fs.symlinkSync('nowhere', path.join(root, 'dir/dangling'));
  fs.chmodSync(path.join(root, 'dir/sub'), 0o750);
  // Escape attempts planted the way a box could plant them through its mount.
  fs.symlinkSync('/etc', path.join(root, 'etc'));
  fs.symlinkSync('../../..', path.join(root, 'up'));
  fs.symlinkSync('/etc/passwd', path.join(root, 'passwd'));
  fs.symlinkSync('../../../../../../../../../etc/hostname', path.join(root, 'dir/host'));
});
afterAll(() => svc.close());

const get = (p: string) => svc.api(`/v1/box-volumes/${vol}${p}`);
const q = (s: string) => encodeURIComponent(s);

describe('directory listing', () => {
  it('lists the root when path is omitted, sorted by name, symlinks as symlink', async () => {
    const res = await get('/directories');
    expect(res.status).toBe(200);
    const { entries } = await res.json();
    expect(entries.map((e: { name: string }) => e.name)).toEqual(['dir', 'etc', 'passwd', 'up']);
    expect(entries.find((e: { name: string }) => e.name === 'etc').type).toBe('symlink');
  });

  it('entries carry type, size, fractional modified_time and mode bits; leading slash optional', async () => {
    const a = await (await get(`/directories?path=${q('dir')}`)).json();
    const b = await (await get(`/directories?path=${q('/dir/')}`)).json();
    expect(b).toEqual(a);
    expect(a.entries.map((e: { name: string }) => e.name)).toEqual(['a.bin', 'b.txt', 'dangling', 'host', 'link', 'sub']);
    const by = Object.fromEntries(a.entries.map((e: { name: string }) => [e.name, e]));
    expect(by['a.bin']).toMatchObject({ type: 'file', size: 1234, mode: 0o644 });
    expect(by['b.txt']).toMatchObject({ type: 'file', size: 5, mode: 0o640 });
    expect(by['sub']).toMatchObject({ type: 'directory', mode: 0o750 });
    expect(by['link']).toMatchObject({ type: 'symlink', size: 'b.txt'.length });
    expect(by['dangling'].type).toBe('symlink');
    const st = fs.statSync(path.join(root, 'dir/b.txt'));
    expect(by['b.txt'].modified_time).toBeCloseTo(st.mtimeMs / 1000, 3);
  });

  it('a missing dir → 404 not_found; a file → 409 failed_precondition; `..` → 400; 4097 chars → 400', async () => {
    expect(await errorOf(await get('/directories?path=nope'))).toMatchObject({ type: 'not_found_error', code: 'not_found' });
    const file = await get('/directories?path=dir/b.txt');
    expect(file.status).toBe(409);
    expect(await errorOf(file)).toMatchObject({ type: 'conflict_error', code: 'failed_precondition' });
    for (const p of ['..', 'dir/../dir', '/../etc', 'dir/..']) {
      const res = await get(`/directories?path=${q(p)}`);
      expect(res.status, p).toBe(400);
      expect((await errorOf(res)).param).toBe('path');
    }
    const long = await get(`/directories?path=${'a'.repeat(4097)}`);
    expect(long.status).toBe(400);
    expect((await errorOf(long)).param).toBe('path');
    expect((await get(`/directories?path=${'a/'.repeat(2048)}`)).status).toBe(404); // 4096 chars: accepted, absent
  });

  it('symlinks out of the volume never list host directories', async () => {
    for (const p of ['etc', 'up', 'up/etc', 'etc/ssh', 'passwd']) {
      const res = await get(`/directories?path=${q(p)}`);
      expect(res.status, p).toBe(404);
      expect(JSON.stringify(await res.json())).not.toMatch(/passwd|hostname|ssh/);
    }
  });
});

describe('path lookup', () => {
  it('follows symlinks; reports the target under the requested name', async () => {
    const e = await (await get('/paths?path=/dir/link')).json();
    expect(e).toMatchObject({ name: 'link', type: 'file', size: 5, mode: 0o640 });
    expect(await (await get('/paths?path=dir')).json()).toMatchObject({ name: 'dir', type: 'directory' });
  });

  it('dangling, missing, escaping → 404 not_found; empty → 400; `..` → 400', async () => {
    for (const p of ['dir/dangling', 'nope', 'etc', 'etc/passwd', 'passwd', 'up', 'dir/host', 'up/etc/hostname']) {
      const res = await get(`/paths?path=${q(p)}`);
      expect(res.status, p).toBe(404);
      expect(await errorOf(res)).toMatchObject({ type: 'not_found_error', code: 'not_found' });
    }
    expect((await errorOf(await get('/paths?path='))).param).toBe('path');
    expect((await get('/paths')).status).toBe(400);
    expect((await get(`/paths?path=${q('dir/../..')}`)).status).toBe(400);
    expect((await get(`/paths?path=${'b'.repeat(4097)}`)).status).toBe(400);
  });
});

describe('files', () => {
  it('PUT 5 MB then GET returns identical bytes with the mode header and Content-Length', async () => {
    const data = randomBytes(5 * 1024 * 1024);
    const put = await svc.api(`/v1/box-volumes/${vol}/files?path=${q('/up/loads/big.bin')}&mode=0600`, {
      method: 'PUT',
      body: data,
      headers: { 'content-type': 'application/octet-stream' },
    });
    // `up` is a symlink leading out of the volume: the write must not follow it.
    expect(put.status).toBe(404);
    const ok = await svc.api(`/v1/box-volumes/${vol}/files?path=${q('/new/deep/big.bin')}&mode=0600`, {
      method: 'PUT',
      body: data,
      headers: { 'content-type': 'application/octet-stream' },
    });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ size_bytes: data.length });
    expect(fs.statSync(path.join(root, 'new/deep/big.bin')).mode & 0o7777).toBe(0o600);
    const got = await get(`/files?path=${q('new/deep/big.bin')}`);
    expect(got.status).toBe(200);
    expect(got.headers.get('x-box-file-mode')).toBe(String(0o600));
    expect(got.headers.get('content-length')).toBe(String(data.length));
    expect(Buffer.from(await got.arrayBuffer()).equals(data)).toBe(true);
    expect(fs.readdirSync(path.join(root, 'new/deep'))).toEqual(['big.bin']); // no temp file left
  });

  it('PUT replaces a symlink instead of writing through it; default mode 0644', async () => {
    fs.symlinkSync('/tmp/box-volume-escape-target', path.join(root, 'trap'));
    const res = await svc.api(`/v1/box-volumes/${vol}/files?path=trap`, { method: 'PUT', body: 'mine' });
    expect(res.status).toBe(200);
    expect(fs.existsSync('/tmp/box-volume-escape-target')).toBe(false);
    expect(fs.lstatSync(path.join(root, 'trap')).isFile()).toBe(true);
    expect(fs.statSync(path.join(root, 'trap')).mode & 0o7777).toBe(0o644);
  });

  it('GET never serves host files through symlinks or symlinked parents', async () => {
    for (const p of ['passwd', 'etc/passwd', 'up/etc/passwd', 'dir/host']) {
      const res = await get(`/files?path=${q(p)}`);
      expect(res.status, p).toBe(404);
      expect(await res.text()).not.toMatch(/root:/);
    }
    const viaLink = await get('/files?path=dir/link');
    expect(await viaLink.text()).toBe('hello');
  });

  it('a symlinked intermediate directory inside the volume works; outside it does not', async () => {
    fs.symlinkSync('dir', path.join(root, 'alias'));
    const put = await svc.api(`/v1/box-volumes/${vol}/files?path=alias/sub/x.txt`, { method: 'PUT', body: 'via alias' });
    expect(put.status).toBe(200);
    expect(fs.readFileSync(path.join(root, 'dir/sub/x.txt'), 'utf8')).toBe('via alias');
    const out = await svc.api(`/v1/box-volumes/${vol}/files?path=etc/box-escape.txt`, { method: 'PUT', body: 'x' });
    expect(out.status).toBe(404);
    expect(fs.existsSync('/etc/box-escape.txt')).toBe(false);
    expect((await get('/directories?path=alias/sub')).status).toBe(200);
  });

  it('errors: directory → 409, missing → 404, over the max → 413, bad mode → 400, `..` → 400', async () => {
    expect(await errorOf(await get('/files?path=dir'))).toMatchObject({ code: 'failed_precondition', type: 'conflict_error' });
    expect(await errorOf(await get('/files?path=dir/zzz'))).toMatchObject({ code: 'not_found' });
    const dirPut = await svc.api(`/v1/box-volumes/${vol}/files?path=dir`, { method: 'PUT', body: 'x' });
    expect(dirPut.status).toBe(409);
    const big = await svc.api(`/v1/box-volumes/${vol}/files?path=big`, { method: 'PUT', body: Buffer.alloc(8 * 1024 * 1024 + 1) });
    expect(big.status).toBe(413);
    expect((await errorOf(big)).type).toBe('invalid_request_error');
    expect(fs.existsSync(path.join(root, 'big'))).toBe(false);
    expect((await errorOf(await svc.api(`/v1/box-volumes/${vol}/files?path=m&mode=999`, { method: 'PUT', body: 'x' }))).param).toBe('mode');
    expect((await errorOf(await svc.api(`/v1/box-volumes/${vol}/files?path=a/../b`, { method: 'PUT', body: 'x' }))).param).toBe('path');
    const noParents = await svc.api(`/v1/box-volumes/${vol}/files?path=p/q/r&create_parents=false`, { method: 'PUT', body: 'x' });
    expect(noParents.status).toBe(404);
  });

  it('an over-limit chunked upload (no Content-Length) is cut off with 413 and leaves nothing', async () => {
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        if (sent++ < 9) c.enqueue(new Uint8Array(1024 * 1024));
        else c.close();
      },
    });
    const res = await svc.api(`/v1/box-volumes/${vol}/files?path=chunked`, { method: 'PUT', body, duplex: 'half' } as RequestInit);
    expect(res.status).toBe(413);
    expect(fs.readdirSync(root).filter((n) => n.startsWith('.box-upload') || n === 'chunked')).toEqual([]);
  });
});

describe('special files', () => {
  it('a FIFO is listed as other, and reading it answers 409 instead of hanging', async () => {
    execFileSync('mkfifo', [path.join(root, 'dir/sub/pipe')]);
    const { entries } = await (await get('/directories?path=dir/sub')).json();
    expect(entries.find((e: { name: string }) => e.name === 'pipe')).toMatchObject({ type: 'other', size: 0 });
    const res = await get('/files?path=dir/sub/pipe');
    expect(res.status).toBe(409);
    expect((await errorOf(res)).code).toBe('failed_precondition');
    expect((await (await get('/paths?path=dir/sub/pipe')).json()).type).toBe('other');
  });
});

describe('latency', () => {
  it('directory listing of 100 entries: p50 over 200 requests', async () => {
    const v = (await (await svc.api('/v1/box-volumes', { method: 'POST', json: { name: 'hundred' } })).json()).volume_id;
    const d = path.join(svc.dataDir, 'volumes', v, 'data');
    for (let i = 0; i < 100; i++) fs.writeFileSync(path.join(d, `f${String(i).padStart(3, '0')}`), 'x'.repeat(i));
    const times: number[] = [];
    for (let i = 0; i < 200; i++) {
      const t = performance.now();
      const res = await svc.api(`/v1/box-volumes/${v}/directories`);
      const body = await res.json();
      times.push(performance.now() - t);
      expect(body.entries).toHaveLength(100);
    }
    times.sort((a, b) => a - b);
    console.log(`volume listing (100 entries) p50=${times[100]!.toFixed(2)} ms p95=${times[190]!.toFixed(2)} ms`);
    expect(times[100]).toBeLessThan(100);
  });
});
