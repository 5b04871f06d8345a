import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { selectedContext } from '../sdk/typescript/src/contexts.js';
import type { TlsPin } from '../sdk/typescript/src/tls.js';
import { CliError } from './errors.js';

export interface CliConfig {
  /** Box API base URL, no trailing slash. */
  url: string;
  /** Inference API base URL; the same as `url` unless the service splits the two. */
  inferenceUrl: string;
  /** Where the local service keeps its data (api-key file, guest images). */
  dataDir: string;
  apiKey: string | undefined;
  /** Where the key came from, for error messages. */
  keySource: string;
  /** How the URL was found: BOX_URL, a context, the endpoint file of a running service, or the default. */
  urlSource: string;
  /** The pinned certificate of an HTTPS service (a context's, or a local --tls service's endpoint record). */
  tls?: TlsPin;
  /** The context in use (BOX_CONTEXT, else the current one), if any. */
  context?: string;
}

interface EndpointRecord {
  url: string;
  inference_url?: string;
  tls_fingerprint?: string;
  data_dir: string;
  pid: number;
}

/**
 * `<dir>/endpoint.json`, written by a running service (src-server/endpoint-file.ts), kept
 * only while the pid that wrote it is alive (a stale file from a crash is ignored).
 */
const liveEndpoint = (dir: string) => liveRecord(path.join(dir, 'endpoint.json'));

function liveRecord(file: string): EndpointRecord | undefined {
  let rec: EndpointRecord;
  try {
    rec = JSON.parse(fs.readFileSync(file, 'utf8')) as EndpointRecord;
  } catch {
    return undefined;
  }
  if (typeof rec.url !== 'string' || typeof rec.data_dir !== 'string' || !Number.isInteger(rec.pid)) return undefined;
  try {
    process.kill(rec.pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return undefined;
  }
  return rec;
}

/**
 * The live services of this machine other than the one at `url`: the one plain `box` finds
 * (`~/.box-desktop/endpoint.json`) and those on other data dirs, which each leave a record in
 * `~/.box-desktop/services/` (src-server/endpoint-file.ts).
 */
export function otherServices(url: string, env: NodeJS.ProcessEnv = process.env): { url: string; data_dir: string; pid: number }[] {
  const home = path.resolve(env.HOME || os.homedir(), '.box-desktop');
  let names: string[] = [];
  try {
    names = fs.readdirSync(path.join(home, 'services')).filter((n) => n.endsWith('.json'));
  } catch {
    // no other service ever ran
  }
  const seen = new Set([url.replace(/\/+$/, '')]);
  const out: { url: string; data_dir: string; pid: number }[] = [];
  for (const file of [path.join(home, 'endpoint.json'), ...names.sort().map((n) => path.join(home, 'services', n))]) {
    const rec = liveRecord(file);
    if (!rec || seen.has(rec.url)) continue;
    seen.add(rec.url);
    out.push({ url: rec.url, data_dir: rec.data_dir, pid: rec.pid });
  }
  return out;
}

const DEFAULT_URL = 'http://127.0.0.1:8787';

/**
 * BOX_URL, else a context (BOX_CONTEXT, else the current one of `box context use`:
 * its URL, key and pinned certificate), else the endpoint file of a running service in BOX_DATA_DIR (default
 * ~/.box-desktop, the same default as `npm run serve`; a service on another data dir leaves
 * a pointer there), else http://127.0.0.1:8787. BOX_INFERENCE_URL (default: the service's
 * own). BOX_API_KEY, else the key file `<data dir>/api-key` written on first start.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): CliConfig {
  const baseDir = path.resolve(env.BOX_DATA_DIR || path.join(env.HOME || os.homedir(), '.box-desktop'));
  let ctx: ReturnType<typeof selectedContext>;
  try {
    ctx = env.BOX_URL ? undefined : selectedContext(env);
  } catch (e) {
    throw new CliError((e as Error).message, 2);
  }
  if (ctx) {
    const url = ctx.context.url.replace(/\/+$/, '');
    const fp = ctx.context.tls_fingerprint;
    return {
      url,
      inferenceUrl: url,
      dataDir: baseDir,
      apiKey: ctx.context.api_key,
      keySource: `context ${ctx.name}`,
      urlSource: `context ${ctx.name} (${ctx.source})`,
      context: ctx.name,
      ...(fp ? { tls: { fingerprint: fp, ...(ctx.context.tls_ca ? { ca: ctx.context.tls_ca } : {}) } } : {}),
    };
  }
  const found = env.BOX_URL ? undefined : liveEndpoint(baseDir);
  const pin = found?.tls_fingerprint ? { tls: { fingerprint: found.tls_fingerprint } } : {};
  const url = (env.BOX_URL || found?.url || DEFAULT_URL).replace(/\/+$/, '');
  const urlSource = env.BOX_URL ? 'BOX_URL' : found ? path.join(baseDir, 'endpoint.json') : 'the default';
  const dataDir = found ? path.resolve(found.data_dir) : baseDir;
  const inferenceUrl = (env.BOX_INFERENCE_URL || found?.inference_url || url).replace(/\/+$/, '');
  if (env.BOX_API_KEY) return { url, inferenceUrl, dataDir, apiKey: env.BOX_API_KEY.trim(), keySource: 'BOX_API_KEY', urlSource, ...pin };
  const file = path.join(dataDir, 'api-key');
  let apiKey: string | undefined;
  try {
    apiKey = fs.readFileSync(file, 'utf8').trim() || undefined;
  } catch {
    apiKey = undefined;
  }
  return { url, inferenceUrl, dataDir, apiKey, keySource: file, urlSource, ...pin };
}
