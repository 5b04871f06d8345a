import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

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
}

const DEFAULT_URL = 'http://127.0.0.1:8787';

/**
 * BOX_URL (default http://127.0.0.1:8787), BOX_INFERENCE_URL (default BOX_URL),
 * BOX_API_KEY, else the key file `<data dir>/api-key` written by the service on first start
 * (BOX_DATA_DIR, default ~/.box-desktop, the same default as `npm run serve`).
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): CliConfig {
  const url = (env.BOX_URL || DEFAULT_URL).replace(/\/+$/, '');
  const dataDir = path.resolve(env.BOX_DATA_DIR || path.join(env.HOME || os.homedir(), '.box-desktop'));
  const inferenceUrl = (env.BOX_INFERENCE_URL || url).replace(/\/+$/, '');
  if (env.BOX_API_KEY) return { url, inferenceUrl, dataDir, apiKey: env.BOX_API_KEY.trim(), keySource: 'BOX_API_KEY' };
  const file = path.join(dataDir, 'api-key');
  let apiKey: string | undefined;
  try {
    apiKey = fs.readFileSync(file, 'utf8').trim() || undefined;
  } catch {
    apiKey = undefined;
  }
  return { url, inferenceUrl, dataDir, apiKey, keySource: file };
}
