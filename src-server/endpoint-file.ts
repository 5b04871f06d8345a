import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Where a running service can be found, so `box` works after `npm start -- --port P
 * --data-dir D` without any environment: `<data dir>/endpoint.json`, and the same record
 * in the default data dir (~/.box-desktop) as a pointer when the service uses another one.
 * The CLI (src-cli/config.ts) trusts a record only while its pid is alive. Not secret (no key).
 */
interface EndpointRecord {
  url: string;
  inference_url: string;
  data_dir: string;
  pid: number;
  started_at: string;
}

const ENDPOINT_FILE = 'endpoint.json';
const defaultDataDir = (env: NodeJS.ProcessEnv = process.env) => path.join(env.HOME || os.homedir(), '.box-desktop');

/** Writes the record (data dir and pointer); answers a function that removes what is still ours. */
export function publishEndpoint(rec: Omit<EndpointRecord, 'pid' | 'started_at'>, env: NodeJS.ProcessEnv = process.env): () => void {
  const full: EndpointRecord = { ...rec, data_dir: path.resolve(rec.data_dir), pid: process.pid, started_at: new Date().toISOString() };
  const files = [...new Set([path.join(full.data_dir, ENDPOINT_FILE), path.join(defaultDataDir(env), ENDPOINT_FILE)])];
  for (const f of files) {
    try {
      fs.mkdirSync(path.dirname(f), { recursive: true, mode: 0o700 });
      fs.writeFileSync(`${f}.tmp`, `${JSON.stringify(full, null, 2)}\n`);
      fs.renameSync(`${f}.tmp`, f);
    } catch {
      // a read-only home must not stop the service; the banner still prints BOX_URL
    }
  }
  return () => {
    for (const f of files) if (readEndpoint(f)?.pid === process.pid) fs.rmSync(f, { force: true });
  };
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
