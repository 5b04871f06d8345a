import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { alive, startTimeOf } from './data-dir-lock.js';

/**
 * Where a running service can be found, so `box` works after `npm start -- --port P
 * --data-dir D` without any environment. Not secret (no key). Each service writes:
 *
 * - `<data dir>/endpoint.json`, its own record;
 * - `~/.box-desktop/endpoint.json`, the record plain `box` reads: the default data dir's
 *   service always writes it (it is its own); a service on another data dir claims it only
 *   while no live service owns it, so a second service never takes `box` away from the one
 *   it was talking to (when its owner stops, it hands it to another live service, if any);
 * - `~/.box-desktop/services/<hash of its data dir>.json` when its data dir is not the
 *   default one, so `box status` can name every service running on this machine.
 *
 * A record names its pid and that process's start time; the CLI (src-cli/config.ts) trusts
 * one only while its pid is alive. Stopping removes the files that are still this process's.
 */
interface EndpointRecord {
  url: string;
  inference_url: string;
  data_dir: string;
  /** SHA-256 fingerprint of the certificate when the service serves HTTPS (the CLI pins it). */
  tls_fingerprint?: string;
  pid: number;
  /** The process's start time in clock ticks since boot (pids are reused), where there is /proc. */
  start: string | null;
  started_at: string;
}

const ENDPOINT_FILE = 'endpoint.json';
const SERVICES_DIR = 'services';
const defaultDataDir = (env: NodeJS.ProcessEnv = process.env) => path.resolve(env.HOME || os.homedir(), '.box-desktop');

/** `~/.box-desktop/services/<hash>.json`: the record of a service on a data dir other than the default. */
const serviceRecordFile = (home: string, dataDir: string) =>
  path.join(home, SERVICES_DIR, `${createHash('sha256').update(dataDir).digest('hex').slice(0, 16)}.json`);

/** Writes this process's records (above); answers a function that removes those still ours. */
export function publishEndpoint(rec: Omit<EndpointRecord, 'pid' | 'start' | 'started_at'>, env: NodeJS.ProcessEnv = process.env): () => void {
  const full: EndpointRecord = {
    ...rec,
    data_dir: path.resolve(rec.data_dir),
    pid: process.pid,
    start: startTimeOf(process.pid),
    started_at: new Date().toISOString(),
  };
  const home = defaultDataDir(env);
  const pointer = path.join(home, ENDPOINT_FILE);
  const files = [path.join(full.data_dir, ENDPOINT_FILE)];
  if (full.data_dir !== home) {
    files.push(serviceRecordFile(home, full.data_dir));
    if (!pointerHolder(env)) files.push(pointer);
  }
  for (const f of files) writeRecord(f, full);
  return () => {
    // the pointer too: it may have been handed to this service after its start
    const heldPointer = readEndpoint(pointer)?.pid === process.pid;
    for (const f of new Set([...files, pointer])) if (readEndpoint(f)?.pid === process.pid) fs.rmSync(f, { force: true });
    // plain `box` is handed to a service still running on another data dir, if any
    if (heldPointer) {
      const next = listFiles(path.join(home, SERVICES_DIR))
        .map(readEndpoint)
        .find((r) => r && r.pid !== process.pid && alive({ pid: r.pid, start: r.start ?? null }));
      if (next) writeRecord(pointer, next);
    }
  };
}

function writeRecord(file: string, rec: EndpointRecord) {
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fs.writeFileSync(`${file}.${process.pid}.tmp`, `${JSON.stringify(rec, null, 2)}\n`);
    fs.renameSync(`${file}.${process.pid}.tmp`, file);
  } catch {
    // a read-only home must not stop the service; the banner still prints BOX_URL
  }
}

function listFiles(dir: string): string[] {
  try {
    return fs
      .readdirSync(dir)
      .filter((n) => n.endsWith('.json'))
      .sort()
      .map((n) => path.join(dir, n));
  } catch {
    return [];
  }
}

/** The live service plain `box` finds (`~/.box-desktop/endpoint.json`), when it is another process. */
export function pointerHolder(env: NodeJS.ProcessEnv = process.env): EndpointRecord | undefined {
  const owner = readEndpoint(path.join(defaultDataDir(env), ENDPOINT_FILE));
  return owner && owner.pid !== process.pid && alive({ pid: owner.pid, start: owner.start ?? null }) ? owner : undefined;
}

function readEndpoint(file: string): EndpointRecord | undefined {
  try {
    const rec = JSON.parse(fs.readFileSync(file, 'utf8')) as EndpointRecord;
    return typeof rec.url === 'string' && typeof rec.data_dir === 'string' && Number.isInteger(rec.pid) ? rec : undefined;
  } catch {
    return undefined;
  }
}

/** The exact environment line for the CLI against this service. */
export function cliLine(rec: { url: string; data_dir: string }, env: NodeJS.ProcessEnv = process.env): string {
  const vars =
    path.resolve(rec.data_dir) === path.resolve(defaultDataDir(env)) && rec.url === 'http://127.0.0.1:8787'
      ? ''
      : `BOX_URL=${rec.url} BOX_DATA_DIR=${rec.data_dir} `;
  return `${vars}npx box whoami`;
}
