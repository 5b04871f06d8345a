import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, type TestService } from '../../../test-support/harness.js';
import { waitFor } from '../test-support/receiver.js';
import { startInferenceService } from '../test-support/service.js';
import type { CatalogEntry } from './catalog.js';
import { pullFailure } from './pulls.js';

// A loopback file server with Range support. `hangAfter` makes it send that many bytes of a
// full (200) answer and then stall, like a connection cut when the service stops.
const file = Buffer.concat([Buffer.from('GGUF'), Buffer.alloc(300_000, 7)]);
const sum = createHash('sha256').update(file).digest('hex');
const ranges: (string | undefined)[] = [];
let hangAfter: number | null = null;
let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    // a publisher advertising checksums the way Hugging Face does (X-Linked-Etag on HEAD)
    const advertised = req.url?.startsWith('/lfs/')
      ? `"${sum}"`
      : req.url?.startsWith('/lfs-bad/')
        ? `"${'b'.repeat(64)}"`
        : req.url?.startsWith('/git/')
          ? `"${'c'.repeat(40)}"`
          : undefined;
    if (req.method === 'HEAD') {
      res.writeHead(advertised ? 302 : 200, advertised ? { 'x-linked-etag': advertised, location: req.url! } : {});
      res.end();
      return;
    }
    ranges.push(req.headers.range);
    const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    const from = m ? Number(m[1]) : 0;
    const body = file.subarray(from);
    res.writeHead(m ? 206 : 200, { 'content-length': body.length, ...(m ? { 'content-range': `bytes ${from}-${file.length - 1}/${file.length}` } : {}) });
    if (hangAfter !== null && !m) res.write(body.subarray(0, hangAfter));
    else res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const entry = (over: Partial<CatalogEntry> = {}): CatalogEntry => ({
  id: 'tiny',
  name: 'tiny',
  description: 'test',
  parameters: '0',
  quantization: 'none',
  size_bytes: file.length,
  licence: 'MIT',
  source_url: `${base}/tiny.gguf`,
  sha256: sum,
  ...over,
});
const start = (dataDir?: string, catalog = [entry(), entry({ id: 'corrupt', name: 'corrupt', sha256: 'a'.repeat(64) })]) =>
  startInferenceService({ dataDir, tuning: { modelCatalog: catalog } });
const pullOf = async (svc: TestService, id: string) => (await svc.api(`/v1/local-models/pulls/${id}`)).json();

describe('model catalog pulls', () => {
  it('lists the catalog and validates a pull request naming the field', async () => {
    const svc = await start();
    try {
      const cat = await (await svc.api('/v1/local-models/catalog')).json();
      expect(cat.data.map((c: CatalogEntry) => c.id)).toEqual(['tiny', 'corrupt']);
      const unknown = await svc.api('/v1/local-models/pull', { method: 'POST', json: { catalog_id: 'nope' } });
      expect(unknown.status).toBe(404);
      expect((await errorOf(unknown)).param).toBe('catalog_id');
      expect((await svc.api('/v1/local-models/pull', { method: 'POST', json: {} })).status).toBe(400);
    } finally {
      await svc.close();
    }
  });

  it('a pull cut by a service restart resumes with an HTTP Range request and is checksum-verified', async () => {
    hangAfter = 100_000;
    ranges.length = 0;
    let svc = await start();
    const dataDir = svc.dataDir;
    const started = await svc.api('/v1/local-models/pull', { method: 'POST', json: { catalog_id: 'tiny' } });
    expect(started.status).toBe(202);
    const { id, state, sha256 } = await started.json();
    expect({ state, sha256 }).toEqual({ state: 'downloading', sha256: sum });
    await waitFor(
      () => pullOf(svc, id),
      (p) => p.bytes_done === 100_000,
    ).finally(() => svc.close());
    hangAfter = null;
    svc = await start(dataDir);
    try {
      const done = await waitFor(
        () => pullOf(svc, id),
        (p) => p.state !== 'downloading' && p.state !== 'verifying',
      );
      expect(done).toMatchObject({ state: 'completed', bytes_done: file.length, bytes_total: file.length, sha256: sum, model_id: 'local/tiny' });
      expect(ranges).toEqual([undefined, 'bytes=100000-']);
      expect(fs.readFileSync(path.join(dataDir, 'models', 'tiny.gguf')).equals(file)).toBe(true);
      const models = (await (await svc.api('/v1/models')).json()).data.map((m: { id: string }) => m.id);
      expect(models).toContain('local/tiny');
    } finally {
      await svc.close();
    }
  });

  it('a checksum mismatch fails the pull and discards the file', async () => {
    hangAfter = null;
    const svc = await start();
    try {
      const { id } = await (await svc.api('/v1/local-models/pull', { method: 'POST', json: { catalog_id: 'corrupt' } })).json();
      const done = await waitFor(
        () => pullOf(svc, id),
        (p) => p.state === 'failed',
      );
      expect(done.error).toMatch(/checksum mismatch/);
      expect(fs.existsSync(path.join(svc.dataDir, 'models', 'corrupt.gguf'))).toBe(false);
      expect(fs.readdirSync(path.join(svc.dataDir, 'models', '.pulls'))).toEqual([]);
    } finally {
      await svc.close();
    }
  });

  it('a catalog entry without a checksum is verified against the one its publisher advertises', async () => {
    hangAfter = null;
    const catalog = [
      entry({ id: 'lfs', name: 'lfs', sha256: null, source_url: `${base}/lfs/m.gguf` }),
      entry({ id: 'lfs-bad', name: 'lfs-bad', sha256: null, source_url: `${base}/lfs-bad/m.gguf` }),
      entry({ id: 'git', name: 'git', sha256: null, source_url: `${base}/git/m.gguf` }),
    ];
    const svc = await start(undefined, catalog);
    try {
      const ended = async (catalog_id: string) => {
        const { id } = await (await svc.api('/v1/local-models/pull', { method: 'POST', json: { catalog_id } })).json();
        return waitFor(
          () => pullOf(svc, id),
          (p) => p.state === 'completed' || p.state === 'failed',
        );
      };
      expect(await ended('lfs')).toMatchObject({ state: 'completed', sha256: sum });
      const bad = await ended('lfs-bad');
      expect(bad.state).toBe('failed');
      expect(bad.error).toMatch(/checksum mismatch: expected sha256 b{64}/);
      // a 40-hex etag is a git blob id, not a checksum of the content: computed and reported
      expect(await ended('git')).toMatchObject({ state: 'completed', sha256: sum });
    } finally {
      await svc.close();
    }
  });

  it('a pull can be cancelled; its partial file is deleted', async () => {
    hangAfter = 50_000;
    const svc = await start();
    try {
      const { id } = await (await svc.api('/v1/local-models/pull', { method: 'POST', json: { catalog_id: 'tiny', name: 'tiny-2' } })).json();
      await waitFor(
        () => pullOf(svc, id),
        (p) => p.bytes_done === 50_000,
      );
      const res = await svc.api(`/v1/local-models/pulls/${id}/cancel`, { method: 'POST' });
      expect(await res.json()).toMatchObject({ state: 'cancelled', model_id: null });
      expect(fs.readdirSync(path.join(svc.dataDir, 'models', '.pulls'))).toEqual([]);
    } finally {
      hangAfter = null;
      await svc.close();
    }
  });
});

describe('a failed download says where and why (issue 29)', () => {
  it('names the host and that the machine seems offline when the name does not resolve', async () => {
    const url = 'https://models.no-such-host.invalid/tiny.gguf';
    const e = await fetch(url).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(Error);
    const msg = pullFailure(e, url);
    expect(msg).toContain('models.no-such-host.invalid');
    expect(msg).toMatch(/offline/);
    expect(msg).toMatch(/(ENOTFOUND|EAI_AGAIN)/);
  });

  it('names the host of a refused connection', async () => {
    const server = http.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    await new Promise((r) => server.close(r));
    const url = `http://127.0.0.1:${port}/m.gguf`;
    const msg = pullFailure(await fetch(url).catch((err: unknown) => err), url);
    expect(msg).toContain(`127.0.0.1:${port}`);
    expect(msg).toContain('ECONNREFUSED');
  });
});
