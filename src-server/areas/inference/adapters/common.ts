import { invalid } from '../../../kernel/domain-errors.js';
import { COMPLETION_WINDOWS } from '@box/contract/inference';
import type { NativeImage, NativeRequest } from '../native.js';

/** Collects the image parts of a content array: `take` answers whether the part was an image. */
interface ImageSink {
  take(part: Record<string, unknown>, where: string): boolean;
}

/** An ImageSink for one style's image parser (adapters/images.ts); `images` fills as parts are read. */
export function imageSink(parse: (p: Record<string, unknown>, where: string) => NativeImage | null): ImageSink & { images: NativeImage[] } {
  const images: NativeImage[] = [];
  return {
    images,
    take(p, where) {
      const img = parse(p, where);
      if (img) images.push(img);
      return img !== null;
    },
  };
}

/** What every adapter's request converter produces, beside the native request. */
export interface Prepared {
  native: NativeRequest;
  /** Wire fields echoed back on the Responses-shaped object (instructions, reasoning...). */
  echo: Record<string, unknown>;
  /** Request metadata as sent (string values), `webhook_token` included. */
  metadata: Record<string, string>;
  webhook: { url: string; token: string | null } | null;
  background: boolean;
  /** `stream: true`: answer as server-sent events in the request's wire style. */
  stream: boolean;
  /** `store: false` (Responses, Chat Completions): answered and charged, never stored. */
  store: boolean;
  /** Chat Completions' `stream_options.include_usage`. */
  streamUsage?: boolean;
}

export function refuse(param: string, message: string): never {
  throw invalid(message, param);
}

const present = (v: unknown) => v !== undefined && v !== null;

/** `stream` (beyond the spec: every style streams in its own wire format, routes/stream-*.ts). */
export function wantsStream(body: Record<string, unknown>): boolean {
  if (!present(body.stream) || body.stream === false) return false;
  if (body.stream !== true) refuse('stream', 'stream must be true or false.');
  return true;
}

/** Refuses a field whenever it is present with a non-null value. */
export function refusePresent(body: Record<string, unknown>, fields: string[], why: string) {
  for (const f of fields) if (present(body[f])) refuse(f, `${f} is not supported: ${why}`);
}

/**
 * Metadata (spec, Request metadata keys): string values only; `completion_window` in
 * asap/15m/24h. An invalid `completion_webhook` is not an error: the spec says no webhook
 * is sent and the call is unchanged.
 */
export function checkMetadata(meta: Record<string, string> | null | undefined): Pick<Prepared, 'metadata' | 'webhook'> {
  const metadata = { ...(meta ?? {}) };
  const window = metadata.completion_window;
  if (window !== undefined && !(COMPLETION_WINDOWS as readonly string[]).includes(window)) {
    refuse('metadata.completion_window', `metadata.completion_window must be one of ${COMPLETION_WINDOWS.join(', ')}.`);
  }
  const url = metadata.completion_webhook;
  const webhook = url !== undefined && isHttpUrl(url) ? { url, token: metadata.webhook_token ?? null } : null;
  return { metadata, webhook };
}

function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

/**
 * Text of a message's content: a string or an array of text blocks (`textTypes`).
 * `image` (where a style's images are allowed) collects its image parts (adapters/images.ts).
 * Anything else (audio, files, tool blocks) is refused naming the block.
 */
export function contentText(content: unknown, param: string, textTypes: string[], image?: ImageSink): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) refuse(param, `${param} must be a string or an array of text blocks.`);
  return content
    .map((part, i) => {
      const p = part as { type?: unknown; text?: unknown } | null;
      const where = `${param}[${i}]`;
      if (!p || typeof p !== 'object' || typeof p.type !== 'string') refuse(`${where}.type`, `${where} must be a content block with a type.`);
      if (image && image.take(p as Record<string, unknown>, where)) return '';
      if (!textTypes.includes(p.type)) {
        refuse(
          `${where}.type`,
          `Content is text${image ? ' and images' : ''} only: ${where} is a "${p.type}" block; send ${textTypes.map((t) => `"${t}"`).join(' or ')} blocks.`,
        );
      }
      if (typeof p.text !== 'string') refuse(`${where}.text`, `${where}.text must be a string.`);
      return p.text;
    })
    .join('');
}

/** Merges the pieces every adapter shares into a Prepared request. */
export function prepared(
  native: NativeRequest,
  echo: Record<string, unknown>,
  meta: Record<string, string> | null | undefined,
  opts: { background?: boolean; stream?: boolean; store?: boolean } = {},
): Prepared {
  if (native.messages.length === 0) refuse('messages', 'At least one message is required.');
  nameToolResults(native);
  const store = opts.store ?? true;
  const checked = checkMetadata(meta);
  if (!store && checked.webhook) refuse('store', 'store=false cannot be combined with metadata.completion_webhook: the webhook carries the stored response.');
  return { native, echo: store ? echo : { ...echo, store: false }, background: opts.background ?? false, stream: opts.stream ?? false, store, ...checked };
}

/** Tool turns learn the name of the call they answer (chat templates and Anthropic-style upstreams want it). */
function nameToolResults(native: NativeRequest) {
  const names = new Map<string, string>();
  for (const m of native.messages) {
    for (const c of m.toolCalls ?? []) names.set(c.id, c.name);
    if (m.role === 'tool' && !m.toolName && m.toolCallId) m.toolName = names.get(m.toolCallId);
  }
}
