import { invalid } from '../../core/errors.js';
import { COMPLETION_WINDOWS } from '../../contract/inference.js';
import type { NativeRequest } from '../native.js';

/** What every adapter's request converter produces, beside the native request. */
export interface Prepared {
  native: NativeRequest;
  /** Wire fields echoed back on the Responses-shaped object (instructions, reasoning...). */
  echo: Record<string, unknown>;
  /** Request metadata as sent (string values), `webhook_token` included. */
  metadata: Record<string, string>;
  webhook: { url: string; token: string | null } | null;
  background: boolean;
}

export function refuse(param: string, message: string): never {
  throw invalid(message, param);
}

const present = (v: unknown) => v !== undefined && v !== null;

/** Refuses `stream: true` (spec: streaming is not supported in any style). */
export function refuseStream(body: Record<string, unknown>) {
  if (present(body.stream) && body.stream !== false) refuse('stream', 'stream=true is not supported: send stream=false or omit it.');
}

/** Refuses a field whenever it is present with a non-null value. */
export function refusePresent(body: Record<string, unknown>, fields: string[], why: string) {
  for (const f of fields) if (present(body[f])) refuse(f, `${f} is not supported: ${why}`);
}

/** Tools are not supported: an empty list and the "none"/"auto" choices are harmless. */
export function refuseTools(body: Record<string, unknown>, extra: string[] = []) {
  if (present(body.tools) && !(Array.isArray(body.tools) && body.tools.length === 0)) {
    refuse('tools', 'tools are not supported: tool and function calling are unavailable.');
  }
  if (present(body.tool_choice) && body.tool_choice !== 'none' && body.tool_choice !== 'auto') {
    refuse('tool_choice', 'A custom tool_choice is not supported: tools are unavailable.');
  }
  if (present(body.parallel_tool_calls) && body.parallel_tool_calls !== false) {
    refuse('parallel_tool_calls', 'parallel_tool_calls is not supported: tools are unavailable.');
  }
  refusePresent(body, extra, 'tool and function calling are unavailable.');
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
 * Anything else (images, audio, files, tool blocks) is refused naming the block.
 */
export function contentText(content: unknown, param: string, textTypes: string[]): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) refuse(param, `${param} must be a string or an array of text blocks.`);
  return content
    .map((part, i) => {
      const p = part as { type?: unknown; text?: unknown } | null;
      const where = `${param}[${i}]`;
      if (!p || typeof p !== 'object' || typeof p.type !== 'string') refuse(`${where}.type`, `${where} must be a content block with a type.`);
      if (!textTypes.includes(p.type)) {
        refuse(`${where}.type`, `Content is text only: ${where} is a "${p.type}" block; send ${textTypes.map((t) => `"${t}"`).join(' or ')} blocks.`);
      }
      if (typeof p.text !== 'string') refuse(`${where}.text`, `${where}.text must be a string.`);
      return p.text;
    })
    .join('');
}

/** Merges the pieces every adapter shares into a Prepared request. */
export function prepared(native: NativeRequest, echo: Record<string, unknown>, meta: Record<string, string> | null | undefined, background = false): Prepared {
  if (native.messages.length === 0) refuse('messages', 'At least one message is required.');
  return { native, echo, background, ...checkMetadata(meta) };
}
