/** A real service for a bench in a fresh data dir, with JSON helpers for its HTTP API. */
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService } from '../src-server/service.js';

export async function benchService(prefix: string) {
  process.env.BOX_IMAGE_CACHE ??= join(tmpdir(), 'box-image-cache');
  const dataDir = await mkdtemp(join(tmpdir(), prefix));
  const key = `bxk_bench_${randomBytes(8).toString('hex')}`;
  const svc = await startService({ dataDir, apiKey: key, log: { info() {}, warn() {}, error: console.error } });
  /** GET without a body, POST with one; a status other than 2xx throws, naming the path. */
  const api = async (path: string, json?: unknown) => {
    const res = await fetch(`${svc.url}${path}`, {
      method: json === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${key}`, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
      body: json === undefined ? undefined : JSON.stringify(json),
    });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return res;
  };
  const post = async (path: string, json: unknown = {}): Promise<any> => (await api(path, json)).json();
  return { svc, dataDir, api, post, key };
}
