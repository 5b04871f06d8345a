import http from 'node:http';
import https from 'node:https';

/** How long adding an upstream waits for its model list. */
const PROBE_TIMEOUT_MS = 5000;

/** Why an upstream did not answer a model list, in words a user can act on. */
interface ProbeFailure {
  code:
    'upstream_refused' | 'upstream_not_found' | 'upstream_timeout' | 'upstream_tls' | 'upstream_unauthorized' | 'upstream_not_compatible' | 'upstream_error';
  message: string;
  /** The field to fix: the key for 401/403, the base URL otherwise. */
  param: 'api_key' | 'base_url';
}

type ProbeResult = { ok: true; models: number } | { ok: false; error: ProbeFailure };

const TLS_CODES = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|EPROTO|HOSTNAME_MISMATCH)/;

/**
 * Why a connection to `url` failed, in words a user can act on: the same wording for
 * "Test", adding an upstream, and a model list or request that fails later.
 */
export function connectFailure(
  err: NodeJS.ErrnoException & { timeout?: boolean },
  url: URL,
  timeoutMs: number,
): { code: ProbeFailure['code']; message: string } {
  const where = url.host;
  const code = err.code ?? '';
  if (err.timeout)
    return { code: 'upstream_timeout', message: `No answer from ${where} within ${timeoutMs / 1000} s. Is the server up, and reachable from this machine?` };
  if (code === 'ECONNREFUSED')
    return { code: 'upstream_refused', message: `Nothing is listening at ${where} (connection refused). Is the server running, and is the port right?` };
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return { code: 'upstream_not_found', message: `The host name "${url.hostname}" does not resolve. Check the base URL.` };
  if (TLS_CODES.test(code))
    return {
      code: 'upstream_tls',
      message: `TLS with ${where} failed (${code}: ${err.message}). Check that the URL should be https, and that its certificate is valid for this host.`,
    };
  return { code: 'upstream_error', message: `Could not reach ${where}: ${code || err.message}.` };
}

/**
 * Tests an upstream the way the gateway will use it: its model list (`GET <base>/models`
 * for OpenAI-compatible servers, `GET <base>/v1/models` for Anthropic) with the key, within
 * a short timeout, and names what went wrong: nothing listening, unknown host, no answer,
 * TLS, a refused key, or an answer that is not an OpenAI/Anthropic model list.
 */
export async function probeUpstream(
  kind: 'openai' | 'anthropic',
  baseUrl: string,
  apiKey: string | null | undefined,
  timeoutMs = PROBE_TIMEOUT_MS,
): Promise<ProbeResult> {
  const base = baseUrl.replace(/\/+$/, '');
  const url = new URL(kind === 'openai' ? `${base}/models` : `${base}/v1/models?limit=1000`);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (kind === 'openai' && apiKey) headers.authorization = `Bearer ${apiKey}`;
  if (kind === 'anthropic') Object.assign(headers, { 'anthropic-version': '2023-06-01' }, apiKey ? { 'x-api-key': apiKey } : {});
  const where = `${url.host}`;
  let res: { status: number; text: string; type: string };
  try {
    res = await get(url, headers, timeoutMs);
  } catch (e) {
    const { code, message } = connectFailure(e as NodeJS.ErrnoException & { timeout?: boolean }, url, timeoutMs);
    return fail(code, message);
  }
  const said = upstreamWords(res.text);
  if (res.status === 401 || res.status === 403) {
    const what = apiKey ? 'refused the API key' : 'needs an API key';
    return { ok: false, error: { code: 'upstream_unauthorized', param: 'api_key', message: `${where} ${what} (${res.status}${said ? `: ${said}` : ''}).` } };
  }
  const hint =
    kind === 'openai'
      ? 'OpenAI-compatible base URLs usually end in /v1 (e.g. https://api.openai.com/v1).'
      : 'Anthropic base URLs are the bare host (e.g. https://api.anthropic.com), without /v1.';
  if (res.status === 404)
    return fail(
      'upstream_not_compatible',
      `GET ${url.pathname} answered 404: this is not an ${kind === 'openai' ? 'OpenAI' : 'Anthropic'}-compatible API at this base URL. ${hint}`,
    );
  if (res.status < 200 || res.status >= 300) return fail('upstream_error', `GET ${url.pathname} answered ${res.status}${said ? `: ${said}` : ''}.`);
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    body = undefined;
  }
  const data = (body as { data?: unknown } | undefined)?.data;
  if (!Array.isArray(data)) {
    const got = body === undefined ? `${res.type || 'a body'} that is not JSON` : 'JSON without a "data" list';
    return fail('upstream_not_compatible', `GET ${url.pathname} answered ${got}: not an ${kind === 'openai' ? 'OpenAI' : 'Anthropic'} model list. ${hint}`);
  }
  return { ok: true, models: data.length };
}

const fail = (code: ProbeFailure['code'], message: string): ProbeResult => ({ ok: false, error: { code, message, param: 'base_url' } });

/** The upstream's own error message when it sent one in a known shape (never its raw body). */
function upstreamWords(text: string): string | undefined {
  try {
    const e = (JSON.parse(text) as { error?: { message?: unknown } | string }).error;
    const m = typeof e === 'string' ? e : typeof e?.message === 'string' ? e.message : undefined;
    return m?.slice(0, 200);
  } catch {
    return undefined;
  }
}

function get(url: URL, headers: Record<string, string>, timeoutMs: number): Promise<{ status: number; text: string; type: string }> {
  return new Promise((resolve, reject) => {
    const mod = url.protocol === 'https:' ? https : http;
    const req = mod.request(url, { method: 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size <= 4 * 1024 * 1024) chunks.push(c); // a model list is small; stop keeping a flood
      });
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), type: String(res.headers['content-type'] ?? '').split(';')[0]! });
      });
      res.on('error', reject);
    });
    const timer = setTimeout(() => req.destroy(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { timeout: true })), timeoutMs);
    req.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    req.end();
  });
}
