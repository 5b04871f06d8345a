import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Contexts, as Docker has them: named services (URL, key, pinned certificate) in
 * `~/.box-desktop/contexts.json` (0600), one of them current. `box context add|use|ls|rm`
 * writes the file; the CLI, this SDK, the Python SDK and `box mcp` read it. BOX_CONTEXT
 * names the context to use instead of the current one (`local`: none, the local service);
 * BOX_URL wins over both.
 */
export interface BoxContext {
  url: string;
  api_key: string;
  /** SHA-256 fingerprint of the service's certificate, pinned on first contact (HTTPS only). */
  tls_fingerprint: string | null;
  /** PEM of the top of the chain seen on first contact (the service's CA), trusted besides the system's roots. */
  tls_ca: string | null;
  added_at: string;
}

export interface ContextsFile {
  current: string | null;
  contexts: Record<string, BoxContext>;
}

/** The name of the local service (no context). */
export const LOCAL_CONTEXT = 'local';
const NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,62}$/;

export function contextsPath(env: Record<string, string | undefined> = process.env): string {
  return path.join(env.HOME || os.homedir(), '.box-desktop', 'contexts.json');
}

export function checkContextName(name: string): string {
  if (!NAME.test(name)) throw new Error(`context name "${name}": letters, digits, "_", "." and "-", starting with a letter or digit, at most 63`);
  if (name === LOCAL_CONTEXT) throw new Error(`"${LOCAL_CONTEXT}" is the name of the local service; choose another name`);
  return name;
}

export function readContexts(env: Record<string, string | undefined> = process.env): ContextsFile {
  const file = contextsPath(env);
  let raw: string;
  try {
    raw = fs.readFileSync(file, 'utf8');
  } catch {
    return { current: null, contexts: {} };
  }
  let parsed: Partial<ContextsFile>;
  try {
    parsed = JSON.parse(raw) as Partial<ContextsFile>;
  } catch (e) {
    throw new Error(`${file} is not valid JSON (${(e as Error).message}); fix or remove it`, { cause: e });
  }
  const contexts: Record<string, BoxContext> = {};
  for (const [name, c] of Object.entries(parsed.contexts ?? {})) {
    if (c && typeof c.url === 'string' && typeof c.api_key === 'string') {
      contexts[name] = { url: c.url, api_key: c.api_key, tls_fingerprint: c.tls_fingerprint ?? null, tls_ca: c.tls_ca ?? null, added_at: c.added_at ?? '' };
    }
  }
  const current = typeof parsed.current === 'string' && contexts[parsed.current] ? parsed.current : null;
  return { current, contexts };
}

/** Writes the file atomically, readable by its owner only (it holds keys). */
export function writeContexts(data: ContextsFile, env: Record<string, string | undefined> = process.env): void {
  const file = contextsPath(env);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
  fs.chmodSync(tmp, 0o600);
  fs.renameSync(tmp, file);
}

/** The context in use: BOX_CONTEXT, else the current one; undefined for the local service. Throws naming an unknown BOX_CONTEXT. */
export function selectedContext(env: Record<string, string | undefined> = process.env): { name: string; context: BoxContext; source: string } | undefined {
  const data = readContexts(env);
  const wanted = env.BOX_CONTEXT?.trim();
  if (wanted) {
    if (wanted === LOCAL_CONTEXT) return undefined;
    const c = data.contexts[wanted];
    if (!c) {
      const known = Object.keys(data.contexts);
      throw new Error(
        `BOX_CONTEXT=${wanted}: no such context (${known.length ? `known: ${known.join(', ')}, ` : ''}"${LOCAL_CONTEXT}" for the local service; \`box context add\` adds one)`,
      );
    }
    return { name: wanted, context: c, source: 'BOX_CONTEXT' };
  }
  if (data.current) return { name: data.current, context: data.contexts[data.current]!, source: contextsPath(env) };
  return undefined;
}
