import type { ChatBody } from '@box/contract/inference';
import type { NativeFormat, NativeMessage } from '../native.js';
import type { StoredResponse } from '../store/responses-repo.js';
import { contentText, imageSink, prepared, refuse, refusePresent, wantsStream, type Prepared } from './common.js';
import { chatImage } from './images.js';
import { argumentsText, chatTools } from './tools.js';

/** POST /v1/chat/completions → native request (spec, Chat Completions limitations; beyond it: `stream`, function tools, `store: false` and `image_url` parts). */
export function chatToNative(body: ChatBody): Prepared {
  const b = body as Record<string, unknown>;
  const stream = wantsStream(b);
  const { tools, toolChoice } = chatTools(b);
  refusePresent(b, ['functions', 'function_call'], 'the legacy function fields are replaced by tools and tool_choice.');
  if (body.n !== undefined && body.n !== null && body.n !== 1) refuse('n', 'n must be 1 when provided.');
  for (const f of ['audio', 'modalities', 'prediction', 'logprobs', 'top_logprobs', 'web_search_options'] as const) {
    if (b[f] !== undefined && b[f] !== null && b[f] !== false) refuse(f, `${f} is not supported: output is text only.`);
  }
  if (b.store !== undefined && b.store !== null && typeof b.store !== 'boolean') refuse('store', 'store must be true or false.');
  const messages = body.messages.map((m, i) => chatMessage(m, `messages[${i}]`));
  const p = prepared(
    {
      model: body.model,
      messages,
      format: chatFormat(body),
      maxOutputTokens: body.max_completion_tokens ?? body.max_tokens ?? undefined,
      tools,
      toolChoice,
      parallelToolCalls: body.parallel_tool_calls ?? true,
      params: {
        temperature: body.temperature ?? undefined,
        topP: body.top_p ?? undefined,
        reasoningEffort: body.reasoning_effort ?? undefined,
        user: body.user ?? undefined,
        presencePenalty: body.presence_penalty ?? undefined,
        frequencyPenalty: body.frequency_penalty ?? undefined,
      },
    },
    { reasoning: { effort: body.reasoning_effort ?? null, summary: null }, user: body.user ?? null },
    body.metadata,
    { stream, store: b.store !== false },
  );
  p.streamUsage = body.stream_options?.include_usage === true;
  return p;
}

function chatFormat(body: ChatBody): NativeFormat {
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
  return format;
}

function chatMessage(m: { role: string; content: unknown }, param: string): NativeMessage {
  const role = m.role === 'developer' ? 'system' : m.role;
  const rec = m as Record<string, unknown>;
  if (role === 'tool') {
    if (typeof rec.tool_call_id !== 'string' || !rec.tool_call_id) refuse(`${param}.tool_call_id`, `${param}.tool_call_id must name the call answered.`);
    return { role: 'tool', text: contentText(m.content ?? '', `${param}.content`, ['text']), toolCallId: rec.tool_call_id };
  }
  if (role !== 'system' && role !== 'user' && role !== 'assistant') {
    refuse(`${param}.role`, `${param}.role "${m.role}" is not supported: send system, developer, user, assistant or tool.`);
  }
  const images = role === 'user' ? imageSink(chatImage) : undefined;
  const msg: NativeMessage = { role, text: contentText(m.content ?? '', `${param}.content`, ['text'], images) };
  if (images?.images.length) msg.images = images.images;
  if (rec.tool_calls !== undefined && rec.tool_calls !== null) {
    if (role !== 'assistant' || !Array.isArray(rec.tool_calls)) refuse(`${param}.tool_calls`, 'tool_calls belong on assistant messages, as an array.');
    msg.toolCalls = rec.tool_calls.map((c: Record<string, unknown>, j: number) => {
      const at = `${param}.tool_calls[${j}]`;
      const f = (c?.function ?? {}) as Record<string, unknown>;
      if (typeof c?.id !== 'string' || typeof f.name !== 'string') refuse(at, `${at} must be {id, type: "function", function: {name, arguments}}.`);
      return { id: c.id, name: f.name, arguments: argumentsText(f.arguments ?? '{}', `${at}.function.arguments`) };
    });
  }
  return msg;
}

/** Stored request → chat.completion object, as the openai SDK types it. */
export function chatCompletionObject(r: StoredResponse) {
  return {
    id: r.id,
    object: 'chat.completion' as const,
    created: Math.floor(r.createdAt / 1000),
    model: r.native.model,
    choices: [
      {
        index: 0,
        message: chatMessageOut(r),
        finish_reason: chatFinish(r.result!.stop),
        logprobs: null,
      },
    ],
    usage: chatUsage(r),
    service_tier: 'default' as const,
    system_fingerprint: null,
  };
}

export const chatFinish = (stop: 'end' | 'max_tokens' | 'tool_calls') =>
  stop === 'max_tokens' ? ('length' as const) : stop === 'tool_calls' ? ('tool_calls' as const) : ('stop' as const);

/** The assistant message; with tool calls, `content` is null when the model said nothing else (as OpenAI answers). */
function chatMessageOut(r: StoredResponse) {
  const calls = r.result!.toolCalls ?? [];
  if (!calls.length) return { role: 'assistant' as const, content: r.result!.text, refusal: null, annotations: [] };
  return {
    role: 'assistant' as const,
    content: r.result!.text || null,
    refusal: null,
    annotations: [],
    tool_calls: calls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })),
  };
}

export function chatUsage(r: StoredResponse) {
  const u = r.result!.usage;
  return {
    prompt_tokens: u.inputTokens,
    completion_tokens: u.outputTokens,
    total_tokens: u.inputTokens + u.outputTokens,
    prompt_tokens_details: { cached_tokens: u.cachedInputTokens },
    completion_tokens_details: { reasoning_tokens: u.reasoningTokens },
  };
}
