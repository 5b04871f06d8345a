import type { ResponsesBody } from '@box/contract/inference';
import { namespacedName, type NativeFormat, type NativeMessage } from '../native.js';
import type { StoredResponse } from '../store/responses-repo.js';
import { decodeCompaction, expandCompaction } from '../compaction.js';
import { contentText, imageSink, prepared, refuse, refusePresent, wantsStream, type Prepared } from './common.js';
import { responsesImage } from './images.js';
import { argumentsText, responsesTools } from './tools.js';
import { responsesHosted, withHosted } from '../hosted/hosted-tools.js';
import { hostedInputItem, hostedTurns } from '../hosted/hosted-turns.js';

/**
 * POST /v1/responses → native request (spec, Inference API, Responses limitations).
 * Beyond the spec: `stream`, function tools, `previous_response_id` (`previous` is that
 * stored response, looked up by the route: its conversation and output come first; its
 * instructions do not carry over, as in OpenAI's API), `store: false` (answered, never
 * stored), `input_image` parts and `compaction` items (issue 34). A `function_call_output`
 * that answers no call of the conversation is refused (400, its `call_id` named), as OpenAI does.
 */
export function responsesToNative(body: ResponsesBody, previous?: StoredResponse): Prepared {
  const b = body as Record<string, unknown>;
  const stream = wantsStream(b);
  if (stream && body.background) refuse('stream', 'stream=true with background=true is not supported: poll GET /v1/responses/{id}.');
  const { tools, toolChoice } = responsesTools(b);
  const hosted = responsesHosted(b);
  if (b.store !== undefined && b.store !== null && typeof b.store !== 'boolean') refuse('store', 'store must be true or false.');
  const store = b.store !== false;
  if (!store && body.background) refuse('store', 'store=false cannot be combined with background=true: a background response is read back from the store.');
  if (b.truncation !== undefined && b.truncation !== null && b.truncation !== 'disabled') {
    refuse('truncation', 'truncation supports only "disabled".');
  }
  refusePresent(b, ['conversation', 'prompt'], 'send the whole input, or previous_response_id.');
  checkInclude(b.include);

  const messages: NativeMessage[] = [];
  if (body.instructions) messages.push({ role: 'system', text: body.instructions });
  if (previous) messages.push(...continuation(previous));
  const inputStart = messages.length;
  if (typeof body.input === 'string') messages.push({ role: 'user', text: body.input });
  else body.input.forEach((item, i) => addInputItem(messages, item, `input[${i}]`, inputStart));

  const f = body.text?.format;
  const format: NativeFormat =
    f?.type === 'json_schema'
      ? { type: 'json_schema', name: f.name, schema: f.schema, strict: f.strict ?? true, description: f.description ?? undefined }
      : { type: 'text' };
  const reasoning = body.reasoning
    ? { effort: body.reasoning.effort ?? null, summary: body.reasoning.summary ?? body.reasoning.generate_summary ?? null }
    : { effort: null, summary: null };
  return prepared(
    {
      model: body.model,
      messages,
      format,
      maxOutputTokens: body.max_output_tokens ?? undefined,
      tools: withHosted(tools, hosted),
      toolChoice,
      ...(hosted.length ? { hosted } : {}),
      parallelToolCalls: body.parallel_tool_calls ?? true,
      maxToolCalls: body.max_tool_calls ?? undefined,
      params: {
        temperature: body.temperature ?? undefined,
        topP: body.top_p ?? undefined,
        reasoningEffort: body.reasoning?.effort ?? undefined,
        user: body.user ?? undefined,
        presencePenalty: body.presence_penalty ?? undefined,
        frequencyPenalty: body.frequency_penalty ?? undefined,
      },
    },
    {
      instructions: body.instructions ?? null,
      reasoning,
      user: body.user ?? null,
      ...(previous ? { previous_response_id: previous.id } : {}),
      ...openResponsesEcho(b),
    },
    body.metadata,
    { background: body.background ?? false, stream, store },
  );
}

/**
 * `include`: `reasoning.encrypted_content` is accepted (Codex CLI always asks for it): the
 * engines give no reasoning items, so there is nothing to add. Anything else is refused, naming it.
 */
function checkInclude(include: unknown) {
  if (include === undefined || include === null) return;
  if (!Array.isArray(include)) refuse('include', 'include must be an array.');
  include.forEach((v, i) => {
    if (v !== 'reasoning.encrypted_content') refuse(`include[${i}]`, `include "${String(v)}" is not supported (only "reasoning.encrypted_content").`);
  });
}

/** Open Responses fields we accept and echo as sent (the engines do not use them). */
function openResponsesEcho(b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (typeof b.top_logprobs === 'number' && b.top_logprobs > 0)
    refuse('top_logprobs', 'top_logprobs is not supported: log probabilities are not available; send 0.');
  for (const k of ['top_logprobs', 'max_tool_calls', 'safety_identifier', 'prompt_cache_key']) {
    if (b[k] !== undefined && b[k] !== null) out[k] = b[k];
  }
  return out;
}

/** A stored response's conversation (without its instructions) and its output, to continue from. */
function continuation(r: StoredResponse): NativeMessage[] {
  const msgs = r.native.messages.filter((m, i) => !(i === 0 && m.role === 'system' && r.echo.instructions));
  if (r.result) msgs.push(...hostedTurns(r.result));
  if (r.result) msgs.push({ role: 'assistant', text: r.result.text, ...(r.result.toolCalls?.length ? { toolCalls: r.result.toolCalls } : {}) });
  return msgs;
}

/** One input item: a message, a function call the model made, a function call's output, a hosted tool's item, or a compaction (compaction.ts). */
function addInputItem(out: NativeMessage[], item: Record<string, unknown>, param: string, inputStart: number) {
  if (item.type === 'compaction') return expandCompaction(out, inputStart, decodeCompaction(item.encrypted_content, `${param}.encrypted_content`));
  if (hostedInputItem(out, item)) return;
  if (item.type === 'function_call') {
    if (typeof item.call_id !== 'string' || !item.call_id) refuse(`${param}.call_id`, `${param}.call_id must be a string.`);
    if (typeof item.name !== 'string') refuse(`${param}.name`, `${param}.name must be a string.`);
    if (item.namespace !== undefined && item.namespace !== null && typeof item.namespace !== 'string')
      refuse(`${param}.namespace`, `${param}.namespace must be a string.`);
    const name = typeof item.namespace === 'string' && item.namespace ? namespacedName(item.namespace, item.name) : item.name;
    const call = { id: item.call_id, name, arguments: argumentsText(item.arguments ?? '{}', `${param}.arguments`) };
    const last = out[out.length - 1];
    if (last?.role === 'assistant') (last.toolCalls ??= []).push(call);
    else out.push({ role: 'assistant', text: '', toolCalls: [call] });
    return;
  }
  if (item.type === 'function_call_output') {
    if (typeof item.call_id !== 'string' || !item.call_id) refuse(`${param}.call_id`, `${param}.call_id must be a string.`);
    const callId = item.call_id;
    // As OpenAI's API and Open Responses: an output answers a call of this conversation (earlier input or the previous response).
    if (!out.some((m) => m.toolCalls?.some((c) => c.id === callId)))
      refuse(`${param}.call_id`, `No tool call found for function call output with call_id ${callId}.`);
    const text = typeof item.output === 'string' ? item.output : contentText(item.output, `${param}.output`, ['input_text', 'output_text', 'text']);
    out.push({ role: 'tool', text, toolCallId: item.call_id });
    return;
  }
  out.push(inputItem(item, param));
}

/** A message item (`type` "message" or absent) with text content. */
function inputItem(item: Record<string, unknown>, param: string): NativeMessage {
  if (item.type !== undefined && item.type !== 'message') {
    refuse(`${param}.type`, `${param} is a "${String(item.type)}" item; send message, function_call, function_call_output or compaction items.`);
  }
  const role = item.role;
  if (role !== 'user' && role !== 'assistant' && role !== 'system' && role !== 'developer') {
    refuse(`${param}.role`, `${param}.role must be one of user, assistant, system, developer.`);
  }
  const images = role === 'user' ? imageSink(responsesImage) : undefined;
  const text = contentText(item.content, `${param}.content`, ['input_text', 'output_text', 'text'], images);
  return { role: role === 'developer' ? 'system' : role, text, ...(images?.images.length ? { images: images.images } : {}) };
}
