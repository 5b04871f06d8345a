import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { selectedContext } from './contexts.js';
import type { TlsPin } from './tls.js';

/** Where the service is and the key to use, and how each was found (for error messages). */
export interface ServiceConfig {
  url: string;
  apiKey: string | undefined;
  urlSource: string;
  keySource: string;
  /** The pinned certificate, when the service is a context served over HTTPS (tls.ts). */
  tls?: TlsPin;
  /** The context in use (contexts.ts), if any. */
  context?: string;
}

const DEFAULT_URL = 'http://127.0.0.1:8787';

/**
 * Finds the service the way the `box` CLI does: BOX_URL, else the endpoint file of a
 * running service (`endpoint.json` in BOX_DATA_DIR, default ~/.box-desktop; kept only while
 * the pid that wrote it is alive), else http://127.0.0.1:8787. The key: BOX_API_KEY, else the
 * key file `<data dir>/api-key` the service writes on first start. Explicit values win.
 */
export function resolveConfig(explicit: { url?: string; apiKey?: string } = {}, env: Record<string, string | undefined> = process.env): ServiceConfig {
  const baseDir = path.resolve(env.BOX_DATA_DIR || path.join(env.HOME || os.homedir(), '.box-desktop'));
  // a context (BOX_CONTEXT, else the current one): its URL, key and pinned certificate
  const ctx = explicit.url || env.BOX_URL ? undefined : selectedContext(env);
  if (ctx) {
    const c = ctx.context;
    return {
      url: c.url.replace(/\/+$/, ''),
      apiKey: explicit.apiKey ?? c.api_key,
      urlSource: `context ${ctx.name} (${ctx.source})`,
      keySource: explicit.apiKey ? 'the apiKey option' : `context ${ctx.name}`,
      context: ctx.name,
      ...(c.tls_fingerprint ? { tls: { fingerprint: c.tls_fingerprint, ...(c.tls_ca ? { ca: c.tls_ca } : {}) } } : {}),
    };
  }
  const found = explicit.url || env.BOX_URL ? undefined : liveEndpoint(baseDir);
  const url = (explicit.url || env.BOX_URL || found?.url || DEFAULT_URL).replace(/\/+$/, '');
  const urlSource = explicit.url ? 'the url option' : env.BOX_URL ? 'BOX_URL' : found ? path.join(baseDir, 'endpoint.json') : 'the default';
  // a local service on HTTPS (--tls) names its certificate's fingerprint in its endpoint record
  const pin = found?.tls_fingerprint ? { tls: { fingerprint: found.tls_fingerprint } } : {};
  if (explicit.apiKey) return { url, apiKey: explicit.apiKey, urlSource, keySource: 'the apiKey option', ...pin };
  if (env.BOX_API_KEY) return { url, apiKey: env.BOX_API_KEY.trim(), urlSource, keySource: 'BOX_API_KEY', ...pin };
  const file = path.join(found ? path.resolve(found.data_dir) : baseDir, 'api-key');
  let apiKey: string | undefined;
  try {
    apiKey = fs.readFileSync(file, 'utf8').trim() || undefined;
  } catch {
    apiKey = undefined;
  }
  return { url, apiKey, urlSource, keySource: file, ...pin };
}

function liveEndpoint(dir: string): { url: string; data_dir: string; tls_fingerprint?: string } | undefined {
  let rec: { url?: unknown; data_dir?: unknown; pid?: unknown; tls_fingerprint?: unknown };
  try {
    rec = JSON.parse(fs.readFileSync(path.join(dir, 'endpoint.json'), 'utf8')) as typeof rec;
  } catch {
    return undefined;
  }
  if (typeof rec.url !== 'string' || typeof rec.data_dir !== 'string' || !Number.isInteger(rec.pid)) return undefined;
  try {
    process.kill(rec.pid as number, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return undefined;
  }
  return { url: rec.url, data_dir: rec.data_dir, ...(typeof rec.tls_fingerprint === 'string' ? { tls_fingerprint: rec.tls_fingerprint } : {}) };
}
