import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * Crash test (issue 14): kill -9 of the service while concurrent uploads stream, restart
 * on the same data dir; every acknowledged upload must read back byte-identical, no
 * upload temp file may be visible or left over. ROUNDS rounds, bounded time.
 */
const ROUNDS = Number(process.env.CRASH_ROUNDS ?? 3);
const UPLOADS = 24;
const KEY = 'bxk_crash_test_key_0000000000000000000000';
const CHILD = path.resolve(__dirname, '../../test-support/crash-child.ts');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'box-crash-'));
let child: ChildProcess | undefined;

afterAll(() => {
  if (child?.exitCode === null) child.kill('SIGKILL');
});

function startChild(): Promise<string> {
  child = spawn(process.execPath, ['--import', 'tsx', CHILD, dataDir, KEY], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child!.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /URL (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child!.once('exit', (code) => reject(new Error(`service exited (${code}) before listening`)));
  });
}

async function killChild() {
  const c = child!;
  const gone = new Promise((r) => c.once('exit', r));
  c.kill('SIGKILL');
  await gone;
}

const api = async (url: string, p: string, init: RequestInit = {}) =>
  fetch(`${url}${p}`, { ...init, headers: { authorization: `Bearer ${KEY}`, ...(init.headers ?? {}) } });

/** Streams `data` in 16 KiB chunks a few ms apart, so kill -9 lands mid-upload; resolves with the status (0: cut off). */
function upload(url: string, volumeId: string, name: string, data: Buffer): Promise<number> {
  const u = new URL(`${url}/v1/box-volumes/${volumeId}/files?path=${encodeURIComponent(name)}`);
  return new Promise((resolve) => {
    const req = http.request(u, { method: 'PUT', headers: { authorization: `Bearer ${KEY}`, 'content-length': data.length } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', () => resolve(0));
    });
    req.on('error', () => resolve(0));
    let off = 0;
    const next = () => {
      if (off >= data.length) return void req.end();
      req.write(data.subarray(off, off + 16384));
      off += 16384;
      setTimeout(next, 2);
    };
    next();
  });
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

function walk(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

describe('kill -9 during concurrent uploads', () => {
  it(`${ROUNDS} rounds: every acknowledged file byte-identical after restart, no temp file visible`, async () => {
    let url = await startChild();
    const volumeId = (
      await (await api(url, '/v1/box-volumes', { method: 'POST', body: '{"name":"crash"}', headers: { 'content-type': 'application/json' } })).json()
    ).volume_id;
    const acked = new Map<string, string>(); // name → sha256 of the acknowledged bytes
    let ackedBytes = 0;
    let lostBytes = 0;
    let cut = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const sent = new Map<string, Buffer>();
      let done = 0;
      const uploads = Array.from({ length: UPLOADS }, (_, i) => {
        // Some names repeat across rounds: a cut-off replacement must leave the acknowledged file whole.
        const name = i % 3 === 0 ? `shared/file-${i}.bin` : `r${round}/file-${i}.bin`;
        // Small ones complete quickly, large ones are still streaming when the kill lands.
        const data = randomBytes(i % 2 ? 1024 + Math.floor(Math.random() * 32 * 1024) : 256 * 1024 + Math.floor(Math.random() * 768 * 1024));
        sent.set(name, data);
        return upload(url, volumeId, name, data).then((status) => {
          done++;
          if (status === 200) {
            acked.set(name, sha(data));
            ackedBytes += data.length;
          } else cut++;
        });
      });
      // Kill once a third have been answered (or after 5 s): some acknowledged, the rest mid-stream.
      for (let waited = 0; done < UPLOADS / 3 && waited < 5000; waited += 20) await new Promise((r) => setTimeout(r, 20));
      await killChild();
      await Promise.all(uploads);
      url = await startChild();
      for (const [name, hash] of acked) {
        const res = await api(url, `/v1/box-volumes/${volumeId}/files?path=${encodeURIComponent(name)}`);
        const body = Buffer.from(await res.arrayBuffer());
        if (res.status !== 200 || sha(body) !== hash) {
          // A later round may have replaced it with a complete new upload: that is fine too.
          const newer = sent.get(name);
          if (!(res.status === 200 && newer && sha(body) === sha(newer))) lostBytes += body.length || 1;
          else acked.set(name, sha(newer));
        }
      }
      const root = path.join(dataDir, 'volumes', volumeId);
      expect(walk(path.join(root, 'data')).filter((f) => path.basename(f).startsWith('.box-upload'))).toEqual([]);
      expect(fs.readdirSync(path.join(root, 'tmp'))).toEqual([]); // swept at start
      const res = await api(url, `/v1/box-volumes/${volumeId}/directories?path=shared`);
      expect([200, 404]).toContain(res.status); // 404: no upload into shared/ got far enough yet
      const listed = res.status === 200 ? ((await res.json()).entries as { name: string }[]) : [];
      expect(listed.filter((e) => e.name.startsWith('.box-upload'))).toEqual([]);
    }
    await killChild();
    console.log(
      `crash test: ${ROUNDS} rounds, ${acked.size} acknowledged files (${ackedBytes} bytes acknowledged), ${cut} uploads cut off, ${lostBytes} bytes lost`,
    );
    expect(lostBytes).toBe(0);
    expect(acked.size).toBeGreaterThan(0);
    expect(cut).toBeGreaterThan(0); // the kill really landed mid-upload
  }, 120_000);
});
