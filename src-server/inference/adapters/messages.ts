import type { MessagesBody } from '../../contract/inference.js';
import type { NativeFormat } from '../native.js';
import type { StoredResponse } from '../store/responses-repo.js';
import { contentText, prepared, refuse, refusePresent, refuseStream, refuseTools, type Prepared } from './common.js';

/** POST /v1/messages → native request (spec, Messages limitations). */
export function messagesToNative(body: MessagesBody): Prepared {
  const b = body as Record<string, unknown>;
  refuseStream(b);
  refusePresent(b, ['system'], 'send instructions in the first user message.');
  refuseTools(b);
  refusePresent(b, ['top_k'], 'use temperature or top_p.');
  if (b.thinking !== undefined && b.thinking !== null && (b.thinking as { type?: unknown }).type !== 'disabled') {
    refuse('thinking', 'thinking is not supported.');
  }
  refusePresent(b, ['service_tier'], 'there is one service tier.');
  refusePresent(b, ['stop_sequences', 'mcp_servers', 'container'], 'this field is unavailable here.');
  const messages = body.messages.map((m, i) => ({
    role: m.role,
    text: contentText(m.content, `messages[${i}].content`, ['text']),
  }));
  const f = body.output_config?.format;
  const format: NativeFormat = f ? { type: 'json_schema', name: f.name ?? 'output', schema: f.schema, strict: true } : { type: 'text' };
  return prepared(
    {
      model: body.model,
      messages,
      format,
      maxOutputTokens: body.max_tokens,
      params: { temperature: body.temperature ?? undefined, topP: body.top_p ?? undefined },
    },
    {},
    body.metadata,
  );
}

/**
 * Stored request → Anthropic message object. `input_tokens` excludes cache reads and
 * writes, which Anthropic reports separately.
 */
export function messageObject(r: StoredResponse) {
  const u = r.result!.usage;
  return {
    id: r.id,
    type: 'message' as const,
    role: 'assistant' as const,
    model: r.native.model,
    // Anthropic omits `citations` when there are none; a `null` there breaks strict clients (Vercel AI SDK).
    content: [{ type: 'text' as const, text: r.result!.text }],
    stop_reason: r.result!.stop === 'max_tokens' ? ('max_tokens' as const) : ('end_turn' as const),
    stop_sequence: null,
    usage: {
      input_tokens: Math.max(0, u.inputTokens - u.cachedInputTokens - u.cacheWriteInputTokens),
      output_tokens: u.outputTokens,
      cache_creation_input_tokens: u.cacheWriteInputTokens,
      cache_read_input_tokens: u.cachedInputTokens,
      service_tier: 'standard' as const,
    },
  };
}
