import { createHash, randomUUID } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { invalid } from '../../kernel/domain-errors.js';
import type { NativeMessage } from './native.js';

/**
 * Compaction (POST /v1/responses/compact, beyond the spec; OpenAI's and Open Responses'
 * `response.compaction`). Box's compaction is lossless: the `compaction` item's
 * `encrypted_content` packs the conversation it stands for (deflated JSON of the native
 * turns, base64url, behind a version tag and a checksum). It is opaque to callers and
 * decoded only here; a later POST /v1/responses that sends the item back gets that
 * conversation in its place, so every engine (echo, upstream, local) sees it whole. It is
 * not encrypted: it holds only what the caller sent or was answered.
 */
const TAG = 'boxc1';

const checksum = (payload: string) => createHash('sha256').update(payload).digest('base64url').slice(0, 16);

function encodeCompaction(model: string, messages: NativeMessage[]): string {
  const payload = deflateRawSync(Buffer.from(JSON.stringify({ model, messages }))).toString('base64url');
  return `${TAG}.${checksum(payload)}.${payload}`;
}

const ROLES = new Set(['system', 'user', 'assistant', 'tool']);

/** The conversation a compaction item stands for; a 400 naming `param` when it is not one of ours, or damaged. */
export function decodeCompaction(content: unknown, param: string): NativeMessage[] {
  const bad = (why: string) => invalid(`${param} is not a compaction made by this service (${why}).`, param);
  if (typeof content !== 'string') throw bad('not a string');
  const [tag, sum, payload, ...rest] = content.split('.');
  if (tag !== TAG || !sum || !payload || rest.length) throw bad('unknown format');
  if (checksum(payload) !== sum) throw bad('checksum mismatch');
  let parsed: { messages?: unknown };
  try {
    parsed = JSON.parse(inflateRawSync(Buffer.from(payload, 'base64url')).toString('utf8'));
  } catch {
    throw bad('undecodable');
  }
  const msgs = parsed.messages;
  if (!Array.isArray(msgs) || !msgs.every((m) => m && typeof m === 'object' && ROLES.has(m.role) && typeof m.text === 'string')) throw bad('malformed');
  return msgs as NativeMessage[];
}

/**
 * Puts a compaction's conversation into `out` at its place in the input: user messages
 * sent just before it that it already holds (a compaction's own output lists them) are
 * not repeated.
 */
export function expandCompaction(out: NativeMessage[], inputStart: number, compacted: NativeMessage[]) {
  const held = new Set(compacted.filter((m) => m.role === 'user').map((m) => m.text));
  const before = out.splice(inputStart);
  out.push(...before.filter((m) => !(m.role === 'user' && held.has(m.text))), ...compacted);
}

const newId = (prefix: string) => `${prefix}_${randomUUID().replaceAll('-', '')}`;

/** The `response.compaction` object: the conversation's user messages, then one compaction item. */
export function compactionObject(model: string, messages: NativeMessage[]) {
  const users = messages.filter((m) => m.role === 'user');
  return {
    id: newId('resp'),
    object: 'response.compaction' as const,
    created_at: Math.floor(Date.now() / 1000),
    output: [
      ...users.map((m) => ({
        type: 'message' as const,
        id: newId('msg'),
        role: 'user' as const,
        status: 'completed' as const,
        content: [
          ...(m.text ? [{ type: 'input_text' as const, text: m.text }] : []),
          ...(m.images ?? []).map((i) => ({
            type: 'input_image' as const,
            image_url: i.kind === 'url' ? i.url : `data:${i.mediaType};base64,${i.data}`,
            detail: 'auto' as const,
          })),
        ],
      })),
      { type: 'compaction' as const, id: newId('cmp'), encrypted_content: encodeCompaction(model, messages) },
    ],
    // No model runs: the compaction is a packing, not a summary.
    usage: { input_tokens: 0, input_tokens_details: { cached_tokens: 0 }, output_tokens: 0, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 0 },
  };
}
