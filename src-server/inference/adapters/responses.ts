import type { ResponsesBody } from '../../contract/inference.js';
import type { NativeFormat, NativeMessage } from '../native.js';
import { contentText, prepared, refuse, refusePresent, refuseStream, refuseTools, type Prepared } from './common.js';

/** POST /v1/responses → native request (spec, Inference API, Responses limitations). */
export function responsesToNative(body: ResponsesBody): Prepared {
  const b = body as Record<string, unknown>;
  refuseStream(b);
  refuseTools(b);
  if (b.store === false) refuse('store', 'store=false is not supported: every response is stored.');
  if (b.truncation !== undefined && b.truncation !== null && b.truncation !== 'disabled') {
    refuse('truncation', 'truncation supports only "disabled".');
  }
  refusePresent(b, ['previous_response_id', 'conversation', 'prompt'], 'conversation state is not kept; send the whole input.');
  if (Array.isArray(b.include) && b.include.length) refuse('include', 'include is not supported.');

  const messages: NativeMessage[] = [];
  if (body.instructions) messages.push({ role: 'system', text: body.instructions });
  if (typeof body.input === 'string') messages.push({ role: 'user', text: body.input });
  else body.input.forEach((item, i) => messages.push(inputItem(item, `input[${i}]`)));

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
      params: {
        temperature: body.temperature ?? undefined,
        topP: body.top_p ?? undefined,
        reasoningEffort: body.reasoning?.effort ?? undefined,
        user: body.user ?? undefined,
      },
    },
    { instructions: body.instructions ?? null, reasoning, user: body.user ?? null },
    body.metadata,
    body.background ?? false,
  );
}

/** One input item: a message (`type` "message" or absent) with text content. */
function inputItem(item: Record<string, unknown>, param: string): NativeMessage {
  if (item.type !== undefined && item.type !== 'message') {
    refuse(`${param}.type`, `Input is text only: ${param} is a "${String(item.type)}" item; send message items.`);
  }
  const role = item.role;
  if (role !== 'user' && role !== 'assistant' && role !== 'system' && role !== 'developer') {
    refuse(`${param}.role`, `${param}.role must be one of user, assistant, system, developer.`);
  }
  const text = contentText(item.content, `${param}.content`, ['input_text', 'output_text', 'text']);
  return { role: role === 'developer' ? 'system' : role, text };
}
