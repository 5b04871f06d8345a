import type { MessagesBody } from '@box/contract/inference';
import { parsedArguments, type NativeFormat, type NativeMessage } from '../native.js';
import type { StoredResponse } from '../store/responses-repo.js';
import { contentText, prepared, refuse, refusePresent, wantsStream, type Prepared } from './common.js';
import { messagesImage } from './images.js';
import { messagesTools } from './tools.js';
import { messagesHosted, withHosted } from '../hosted/hosted-tools.js';
import { hostedBlock } from '../hosted/hosted-turns.js';
import { hostedBlocks } from '../hosted/hosted-view.js';

/** POST /v1/messages → native request (spec, Messages limitations; beyond it: `stream`, `system`, client tools and `image` blocks). */
export function messagesToNative(body: MessagesBody): Prepared {
  const b = body as Record<string, unknown>;
  const stream = wantsStream(b);
  const { tools, toolChoice, parallel } = messagesTools(b);
  const hosted = messagesHosted(b);
  refusePresent(b, ['top_k'], 'use temperature or top_p.');
  // `adaptive` lets the model decide whether to think (beyond the spec: these engines answer
  // without thinking, which that allows; Claude Code sends it); `enabled` asks for thinking.
  const thinking = (b.thinking as { type?: unknown } | null | undefined)?.type;
  if (b.thinking !== undefined && b.thinking !== null && thinking !== 'disabled' && thinking !== 'adaptive') {
    refuse('thinking', 'thinking is not supported: send {"type": "adaptive"} or {"type": "disabled"}.');
  }
  refusePresent(b, ['service_tier'], 'there is one service tier.');
  refusePresent(b, ['stop_sequences', 'mcp_servers'], 'this field is unavailable here.');
  const messages: NativeMessage[] = [];
  if (b.system !== undefined && b.system !== null) {
    const text = contentText(b.system, 'system', ['text']);
    if (text) messages.push({ role: 'system', text });
  }
  body.messages.forEach((m, i) =>
    m.role === 'system'
      ? messages.push({ role: 'system', text: contentText(m.content, `messages[${i}].content`, ['text']) })
      : addMessage(messages, m.role, m.content, `messages[${i}].content`),
  );
  const f = body.output_config?.format;
  const format: NativeFormat = f ? { type: 'json_schema', name: f.name ?? 'output', schema: f.schema, strict: true } : { type: 'text' };
  return prepared(
    {
      model: body.model,
      messages,
      format,
      maxOutputTokens: body.max_tokens,
      tools: withHosted(tools, hosted),
      toolChoice,
      ...(hosted.length ? { hosted } : {}),
      parallelToolCalls: parallel,
      params: { temperature: body.temperature ?? undefined, topP: body.top_p ?? undefined },
    },
    {},
    body.metadata,
    { stream },
  );
}

type Block = { type?: unknown; text?: unknown; id?: unknown; name?: unknown; input?: unknown; tool_use_id?: unknown; content?: unknown; is_error?: unknown };

/**
 * One message: text blocks, and `tool_use` (assistant) or `tool_result` (user) blocks. A
 * user message's tool results become tool turns, in order, before its text.
 */
function addMessage(out: NativeMessage[], role: 'user' | 'assistant', content: unknown, param: string) {
  if (!Array.isArray(content)) {
    out.push({ role, text: contentText(content, param, ['text']) });
    return;
  }
  const texts: unknown[] = [];
  const msg: NativeMessage = { role, text: '' };
  const hostedResults: NativeMessage[] = [];
  content.forEach((blk: Block, i) => {
    const at = `${param}[${i}]`;
    if (role === 'assistant' && blk && hostedBlock(msg, hostedResults, blk)) return;
    if (role === 'assistant' && blk?.type === 'tool_use') {
      if (typeof blk.id !== 'string' || typeof blk.name !== 'string') refuse(at, `${at} must be {type: "tool_use", id, name, input}.`);
      (msg.toolCalls ??= []).push({ id: blk.id, name: blk.name, arguments: JSON.stringify(blk.input ?? {}) });
    } else if (role === 'user' && blk?.type === 'tool_result') {
      if (typeof blk.tool_use_id !== 'string') refuse(`${at}.tool_use_id`, `${at}.tool_use_id must name the tool_use answered.`);
      const text = blk.content === undefined || blk.content === null ? '' : contentText(blk.content, `${at}.content`, ['text']);
      out.push({ role: 'tool', text, toolCallId: blk.tool_use_id, ...(blk.is_error === true ? { isError: true } : {}) });
    } else if (role === 'user' && blk?.type === 'image') {
      (msg.images ??= []).push(messagesImage(blk as Record<string, unknown>, at)!);
    } else texts.push(blk);
  });
  msg.text = contentText(texts, param, ['text']);
  if (msg.text || msg.toolCalls || msg.images || !content.length) out.push(msg);
  out.push(...hostedResults);
}

/**
 * Stored request → Anthropic message object. `input_tokens` excludes cache reads and
 * writes, which Anthropic reports separately.
 */
export function messageObject(r: StoredResponse) {
  return {
    id: r.id,
    type: 'message' as const,
    role: 'assistant' as const,
    model: r.native.model,
    // Anthropic omits `citations` when there are none; a `null` there breaks strict clients (Vercel AI SDK).
    content: messageContent(r),
    stop_reason: messagesStopOf(r),
    stop_sequence: null,
    usage: messagesUsage(r),
    ...messagesContainer(r),
  };
}

/** The stop reason; `pause_turn` when the code execution loop reached its bound (as Anthropic's API says it). */
export const messagesStopOf = (r: StoredResponse) => (r.result!.hostedLimit ? ('pause_turn' as const) : messagesStop(r.result!.stop));

/** The box the code execution tool used (its id is the `container` a next request sends to reuse it). */
const messagesContainer = (r: StoredResponse) =>
  r.result?.containerId
    ? { container: { id: r.result.containerId, expires_at: new Date(r.result.containerExpiresAt ?? r.completedAt ?? Date.now()).toISOString() } }
    : {};

const messagesStop = (stop: 'end' | 'max_tokens' | 'tool_calls') =>
  stop === 'max_tokens' ? ('max_tokens' as const) : stop === 'tool_calls' ? ('tool_use' as const) : ('end_turn' as const);

/** Text, then one `tool_use` block per call; a text block only when there is text, or nothing else. */
function messageContent(r: StoredResponse) {
  const calls = r.result!.toolCalls ?? [];
  const text = r.result!.text;
  return [
    ...hostedBlocks(r.result!),
    ...(text || !calls.length ? [{ type: 'text' as const, text }] : []),
    ...calls.map((c) => ({ type: 'tool_use' as const, id: c.id, name: c.name, input: parsedArguments(c) })),
  ];
}

export function messagesUsage(r: StoredResponse) {
  const u = r.result!.usage;
  return {
    input_tokens: Math.max(0, u.inputTokens - u.cachedInputTokens - u.cacheWriteInputTokens),
    output_tokens: u.outputTokens,
    cache_creation_input_tokens: u.cacheWriteInputTokens,
    cache_read_input_tokens: u.cachedInputTokens,
    service_tier: 'standard' as const,
  };
}
