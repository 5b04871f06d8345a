import type { ChatBody } from '../../contract/inference.js';
import type { NativeFormat, NativeMessage } from '../native.js';
import type { StoredResponse } from '../store/responses-repo.js';
import { contentText, prepared, refuse, refuseStream, refuseTools, type Prepared } from './common.js';

/** POST /v1/chat/completions → native request (spec, Chat Completions limitations). */
export function chatToNative(body: ChatBody): Prepared {
  const b = body as Record<string, unknown>;
  refuseStream(b);
  refuseTools(b, ['functions', 'function_call']);
  if (body.n !== undefined && body.n !== null && body.n !== 1) refuse('n', 'n must be 1 when provided.');
  for (const f of ['audio', 'modalities', 'prediction', 'logprobs', 'top_logprobs', 'web_search_options'] as const) {
    if (b[f] !== undefined && b[f] !== null && b[f] !== false) refuse(f, `${f} is not supported: output is text only.`);
  }
  const messages = body.messages.map((m, i) => chatMessage(m, `messages[${i}]`));
  const rf = body.response_format;
  const format: NativeFormat =
    rf?.type === 'json_schema'
      ? {
          type: 'json_schema',
          name: rf.json_schema.name,
          schema: rf.json_schema.schema,
          strict: rf.json_schema.strict ?? true,
          description: rf.json_schema.description ?? undefined,
        }
      : { type: 'text' };
  return prepared(
    {
      model: body.model,
      messages,
      format,
      maxOutputTokens: body.max_completion_tokens ?? body.max_tokens ?? undefined,
      params: {
        temperature: body.temperature ?? undefined,
        topP: body.top_p ?? undefined,
        reasoningEffort: body.reasoning_effort ?? undefined,
        user: body.user ?? undefined,
      },
    },
    { reasoning: { effort: body.reasoning_effort ?? null, summary: null }, user: body.user ?? null },
    body.metadata,
  );
}

function chatMessage(m: { role: string; content: unknown }, param: string): NativeMessage {
  const role = m.role === 'developer' ? 'system' : m.role;
  if (role !== 'system' && role !== 'user' && role !== 'assistant') {
    refuse(`${param}.role`, `${param}.role "${m.role}" is not supported: tool and function messages are unavailable.`);
  }
  const rec = m as Record<string, unknown>;
  if (rec.tool_calls !== undefined && rec.tool_calls !== null) refuse(`${param}.tool_calls`, 'Tool calls are not supported.');
  return { role, text: contentText(m.content ?? '', `${param}.content`, ['text']) };
}

/** Stored request → chat.completion object, as the openai SDK types it. */
export function chatCompletionObject(r: StoredResponse) {
  const u = r.result!.usage;
  return {
    id: r.id,
    object: 'chat.completion' as const,
    created: Math.floor(r.createdAt / 1000),
    model: r.native.model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant' as const, content: r.result!.text, refusal: null, annotations: [] },
        finish_reason: r.result!.stop === 'max_tokens' ? ('length' as const) : ('stop' as const),
        logprobs: null,
      },
    ],
    usage: {
      prompt_tokens: u.inputTokens,
      completion_tokens: u.outputTokens,
      total_tokens: u.inputTokens + u.outputTokens,
      prompt_tokens_details: { cached_tokens: u.cachedInputTokens },
      completion_tokens_details: { reasoning_tokens: u.reasoningTokens },
    },
    service_tier: 'default' as const,
    system_fingerprint: null,
  };
}
