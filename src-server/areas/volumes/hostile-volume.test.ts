import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, startTestService, type TestService } from '../../test-support/harness.js';
import { VolumeRoot } from './safe-fs.js';
import { MAX_PATH_DEPTH } from './volume-path.js';
import { expectStreamedListing } from '../../test-support/listing.js';

// Issue 14, items 4, 5 and 7: host-side safety of volume file writes.
let svc: TestService;
let vol: string;
let root: string;
beforeAll(async () => {
  svc = await startTestService();
  vol = (await (await svc.api('/v1/box-volumes', { method: 'POST', json: { name: 'hostile' } })).json()).volume_id;
  root = path.join(svc.dataDir, 'volumes', vol, 'data');
});
afterAll(() => svc.close());

const put = (p: string, body: string, extra = '') => svc.api(`/v1/box-volumes/${vol}/files?path=${encodeURIComponent(p)}${extra}`, { method: 'PUT', body });

describe('file modes on the host', () => {
  it.each(['4755', '2755', '1777', '6777', '04755'])('mode=%s (setuid/setgid/sticky) → 400 naming mode, nothing written', async (mode) => {
    const res = await put(`suid-${mode}`, 'x', `&mode=${mode}`);
    expect(res.status).toBe(400);
    const e = await errorOf(res);
    expect(e.param).toBe('mode');
    expect(e.message).toMatch(/setuid/);
    expect(fs.existsSync(path.join(root, `suid-${mode}`))).toBe(false);
  });

  it('plain modes are kept exactly (boxes see host modes through 9p)', async () => {
    expect((await put('tool.sh', '#!/bin/sh\n', '&mode=0755')).status).toBe(200);
    expect(fs.statSync(path.join(root, 'tool.sh')).mode & 0o7777).toBe(0o755);
  });

  it('the volume directory is reachable by the service user only (0700), so no other host user can run a volume file', () => {
    expect(fs.statSync(path.join(svc.dataDir, 'volumes')).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(svc.dataDir, 'volumes', vol)).mode & 0o777).toBe(0o700);
  });
});

describe('deep paths', () => {
  it(`a path of ${MAX_PATH_DEPTH + 1} levels → 400 that names the bound, nothing created`, async () => {
    const deep = Array.from({ length: MAX_PATH_DEPTH + 1 }, () => 'd').join('/');
    const res = await put(`deep1/${deep}`, 'x');
    expect(res.status).toBe(400);
    const e = await errorOf(res);
    expect(e.param).toBe('path');
    expect(e.message).toContain(String(MAX_PATH_DEPTH));
    expect(fs.existsSync(path.join(root, 'deep1'))).toBe(false);
  });

  it(`a path of ${MAX_PATH_DEPTH} levels is written and read back`, async () => {
    const p = Array.from({ length: MAX_PATH_DEPTH }, (_, i) => (i === MAX_PATH_DEPTH - 1 ? 'leaf' : 'd')).join('/');
    expect((await put(p, 'deep')).status).toBe(200);
    const got = await svc.api(`/v1/box-volumes/${vol}/files?path=${encodeURIComponent(p)}`);
    expect(await got.text()).toBe('deep');
  });

  it('path resolution stops once the client has gone (aborted signal): no directory created', async () => {
    const ac = new AbortController();
    ac.abort();
    const r = new VolumeRoot(root);
    await expect(r.openParent(['gone', 'a', 'b', 'f'], true, ac.signal)).rejects.toMatchObject({ code: 'client_aborted' });
    expect(fs.existsSync(path.join(root, 'gone'))).toBe(false);
  });

  it('a symlinked parent inside the volume is followed; one leading out is refused', async () => {
    fs.mkdirSync(path.join(root, 'real'), { recursive: true });
    fs.symlinkSync('real', path.join(root, 'alias'));
    fs.symlinkSync('/tmp', path.join(root, 'out'));
    expect((await put('alias/f.txt', 'via link')).status).toBe(200);
    expect(fs.readFileSync(path.join(root, 'real/f.txt'), 'utf8')).toBe('via link');
    expect((await put('out/escape.txt', 'no')).status).toBe(404);
    expect(fs.existsSync('/tmp/escape.txt')).toBe(false);
  });
});

describe('upload temp files', () => {
  it('a hard link to a file outside the volume is refused on read (409), its content never served (issue 28)', async () => {
    const outside = path.join(svc.dataDir, 'outside-secret.txt');
    fs.writeFileSync(outside, 'host secret\n');
    fs.linkSync(outside, path.join(root, 'linked.txt'));
    const res = await svc.api(`/v1/box-volumes/${vol}/files?path=linked.txt`);
    expect(res.status).toBe(409);
    const e = await errorOf(res);
    expect(e.message).toMatch(/hard links/);
    expect(JSON.stringify(e)).not.toContain('host secret');
    expect((await put('plain.txt', 'plain\n')).status).toBe(200);
    expect(await (await svc.api(`/v1/box-volumes/${vol}/files?path=plain.txt`)).text()).toBe('plain\n');
  });

  it('an upload in progress leaves nothing visible in the volume', async () => {
    let push!: (b: Uint8Array | null) => void;
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        push = (b) => (b ? c.enqueue(b) : c.close());
      },
    });
    const pending = svc.api(`/v1/box-volumes/${vol}/files?path=slow.bin`, { method: 'PUT', body, duplex: 'half' } as RequestInit);
    push(new Uint8Array(64 * 1024));
    await new Promise((r) => setTimeout(r, 300));
    const names = fs.readdirSync(root);
    expect(names.filter((n) => n.startsWith('.box-upload'))).toEqual([]);
    const listed = (await (await svc.api(`/v1/box-volumes/${vol}/directories`)).json()).entries.map((e: { name: string }) => e.name);
    expect(listed).not.toContain('slow.bin');
    expect(listed.some((n: string) => n.startsWith('.box-upload'))).toBe(false);
    push(null);
    expect((await pending).status).toBe(200);
  });

  it('temp files left by a crash are swept at start', async () => {
    const tmp = path.join(svc.dataDir, 'volumes', vol, 'tmp');
    fs.mkdirSync(tmp, { recursive: true });
    fs.writeFileSync(path.join(tmp, '.box-upload-left-by-crash'), 'partial');
    const again = await startTestService({ dataDir: svc.dataDir });
    try {
      expect(fs.readdirSync(tmp)).toEqual([]);
    } finally {
      await again.close();
    }
  });
});

describe('large listings', () => {
  it('5,000 entries are streamed (chunked, no whole body built), complete and sorted', async () => {
    const dir = path.join(root, 'many');
    fs.mkdirSync(dir);
    // Async, in batches: a blocked event loop would miss the server closing the idle keep-alive socket.
    for (let i = 0; i < 5000; i += 250) {
      await Promise.all(Array.from({ length: 250 }, (_, j) => fs.promises.writeFile(path.join(dir, `f${String(i + j).padStart(5, '0')}`), '')));
    }
    await expectStreamedListing(await svc.api(`/v1/box-volumes/${vol}/directories?path=many`), 5000, 'f00000');
  }, 60_000);
});
