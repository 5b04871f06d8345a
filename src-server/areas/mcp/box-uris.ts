import { createHash } from 'node:crypto';
import { call, resolveBoxId, ToolInputError } from './api-call.js';
import type { BoxApi } from './ports.js';

/** A box's resources: its files (a template), its serial console log and its egress log. */
export const FILE_TEMPLATE = 'box://{box_id}/files/{+path}';
export const CONSOLE_TEMPLATE = 'box://{box_id}/console';
export const EGRESS_TEMPLATE = 'box://{box_id}/egress-log';

/** What resources/read answers beyond this is refused (box_exec with head/tail reads more). */
const READ_LIMIT = 4 * 1024 * 1024;
const CONSOLE_BYTES = 64 * 1024;
const EGRESS_ROWS = 100;

type BoxUri = { box: string; kind: 'file'; path: string } | { box: string; kind: 'console' } | { box: string; kind: 'egress-log' };

/** `box://<box id or name>/files/<path>`, `/console`, `/egress-log`; anything else is undefined. */
export function parseBoxUri(uri: string): BoxUri | undefined {
  const m = /^box:\/\/([^/]+)\/(files\/(.+)|console|egress-log)$/.exec(uri);
  if (!m) return undefined;
  const box = decodeURIComponent(m[1]!);
  if (m[3] !== undefined) return { box, kind: 'file', path: `/${decodeURIComponent(m[3]).replace(/^\/+/, '')}` };
  return m[2] === 'console' ? { box, kind: 'console' } : { box, kind: 'egress-log' };
}

type Contents = { uri: string; mimeType: string; text: string } | { uri: string; mimeType: string; blob: string };

/** resources/read of a box URI, through the box API (its access checks and errors). */
export async function readBoxUri(api: BoxApi, uri: string, signal?: AbortSignal): Promise<Contents> {
  const ref = parseBoxUri(uri);
  if (!ref) throw new ToolInputError(`${uri} is not a box resource (box://BOX/files/PATH, box://BOX/console, box://BOX/egress-log).`);
  const box_id = await resolveBoxId(api, ref.box, signal);
  if (ref.kind === 'console') {
    const tail = await call(api, 'GET /v1/boxes/:box_id/console', { params: { box_id }, query: { bytes: CONSOLE_BYTES }, signal });
    return { uri, mimeType: 'text/plain', text: tail.data };
  }
  if (ref.kind === 'egress-log') {
    const page = await call(api, 'GET /v1/boxes/:box_id/egress-log', { params: { box_id }, query: { limit: EGRESS_ROWS }, signal });
    return { uri, mimeType: 'application/json', text: JSON.stringify({ entries: page.data, total: page.total, has_more: page.has_more }, null, 1) };
  }
  const res = await api.send({ method: 'GET', path: `/v1/boxes/${encodeURIComponent(box_id)}/files`, query: { path: ref.path }, signal });
  if (Number(res.headers.get('content-length') ?? 0) > READ_LIMIT) {
    await res.body?.cancel();
    throw new ToolInputError(`${ref.path} is over the 4 MiB a resource read answers: use box_exec with head, tail or grep.`);
  }
  const bytes = Buffer.from(await res.arrayBuffer());
  const text = bytes.includes(0) ? undefined : decodeUtf8(bytes);
  return text !== undefined ? { uri, mimeType: 'text/plain', text } : { uri, mimeType: 'application/octet-stream', blob: bytes.toString('base64') };
}

function decodeUtf8(bytes: Buffer): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * A short digest of a box resource's current state, to see it change: a file's content (or
 * size beyond the read limit; `absent` once gone), the console log's size, the egress log's
 * newest entry and count.
 */
export async function fingerprint(api: BoxApi, uri: string): Promise<string> {
  const ref = parseBoxUri(uri);
  if (!ref) return '';
  const box_id = await resolveBoxId(api, ref.box);
  if (ref.kind === 'console') return String((await call(api, 'GET /v1/boxes/:box_id/console', { params: { box_id }, query: { bytes: 1 } })).size_bytes);
  if (ref.kind === 'egress-log') {
    const page = await call(api, 'GET /v1/boxes/:box_id/egress-log', { params: { box_id }, query: { limit: 1 } });
    return `${page.total}:${page.data[0]?.id ?? ''}`;
  }
  try {
    const res = await api.send({ method: 'GET', path: `/v1/boxes/${encodeURIComponent(box_id)}/files`, query: { path: ref.path } });
    const size = Number(res.headers.get('content-length') ?? NaN);
    if (size > READ_LIMIT) {
      await res.body?.cancel();
      return `size:${size}:${res.headers.get('x-box-file-mode') ?? ''}`;
    }
    return createHash('sha256')
      .update(Buffer.from(await res.arrayBuffer()))
      .digest('hex');
  } catch (e) {
    if ((e as { status?: number }).status === 404) return 'absent';
    throw e;
  }
}
