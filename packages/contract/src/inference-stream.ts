import { z } from 'zod';
import { ChatCompletion, FunctionCallItem, MessageObject, OutputMessage, ResponseObject } from './inference-wire.js';
import {
  BashResultBlock,
  CodeInterpreterCallItem,
  ComputerCallItem,
  ComputerCallOutputItem,
  ComputerResultBlock,
  HostedResponsesEvents,
  ServerToolUseBlock,
  ShellCallItem,
  ShellCallOutputItem,
} from './inference-hosted.js';

/**
 * The server-sent events of `stream: true` on the three create endpoints (issue 24, beyond
 * the spec): each schema is one event's `data` (JSON). Responses and Messages name the event
 * (`event:` equals `type`); Chat Completions sends bare `data:` chunks and ends with
 * `data: [DONE]`. The OpenAPI document shows them as the `text/event-stream` answer.
 */
const seq = { sequence_number: z.number().int() };
const StreamItem = z.union([
  OutputMessage.extend({ status: z.enum(['in_progress', 'completed', 'incomplete']) }),
  FunctionCallItem,
  CodeInterpreterCallItem,
  ShellCallItem,
  ShellCallOutputItem,
  ComputerCallItem,
  ComputerCallOutputItem,
]);
const TextPart = z.object({ type: z.literal('output_text'), text: z.string(), annotations: z.array(z.unknown()), logprobs: z.array(z.unknown()) });
const at = { item_id: z.string(), output_index: z.number().int() };
const lifecycle = (type: string) => z.object({ type: z.literal(type), ...seq, response: ResponseObject });

export const ResponsesStreamEvent = z.discriminatedUnion('type', [
  lifecycle('response.created'),
  lifecycle('response.in_progress'),
  lifecycle('response.completed'),
  lifecycle('response.incomplete'),
  lifecycle('response.failed'),
  z.object({ type: z.literal('response.output_item.added'), ...seq, output_index: z.number().int(), item: StreamItem }),
  z.object({ type: z.literal('response.output_item.done'), ...seq, output_index: z.number().int(), item: StreamItem }),
  z.object({ type: z.literal('response.content_part.added'), ...seq, ...at, content_index: z.number().int(), part: TextPart }),
  z.object({ type: z.literal('response.content_part.done'), ...seq, ...at, content_index: z.number().int(), part: TextPart }),
  z.object({
    type: z.literal('response.output_text.delta'),
    ...seq,
    ...at,
    content_index: z.number().int(),
    delta: z.string(),
    logprobs: z.array(z.unknown()),
  }),
  z.object({ type: z.literal('response.output_text.done'), ...seq, ...at, content_index: z.number().int(), text: z.string(), logprobs: z.array(z.unknown()) }),
  z.object({ type: z.literal('response.function_call_arguments.delta'), ...seq, ...at, delta: z.string() }),
  z.object({ type: z.literal('response.function_call_arguments.done'), ...seq, ...at, name: z.string(), arguments: z.string() }),
  z.object({ type: z.literal('error'), ...seq, code: z.string().nullable(), message: z.string(), param: z.string().nullable() }),
  ...HostedResponsesEvents,
]);

const ToolCallDelta = z.object({
  index: z.number().int(),
  id: z.string().optional(),
  type: z.literal('function').optional(),
  function: z.object({ name: z.string().optional(), arguments: z.string() }),
});

/** One `chat.completion.chunk`, or the error chunk that ends a failed stream. */
export const ChatStreamChunk = z.union([
  ChatCompletion.pick({ id: true, model: true, service_tier: true, system_fingerprint: true }).extend({
    object: z.literal('chat.completion.chunk'),
    created: z.number().int(),
    choices: z.array(
      z.object({
        index: z.number().int(),
        delta: z.object({
          role: z.literal('assistant').optional(),
          content: z.string().optional(),
          refusal: z.null().optional(),
          tool_calls: z.array(ToolCallDelta).optional(),
        }),
        logprobs: z.null(),
        finish_reason: z.enum(['stop', 'length', 'tool_calls']).nullable(),
      }),
    ),
    /** With `stream_options.include_usage`: null on every chunk but the last, which has no choices. */
    usage: ChatCompletion.shape.usage.nullable().optional(),
  }),
  z.object({ error: z.object({ message: z.string(), type: z.string(), param: z.string().nullable(), code: z.string().nullable() }) }),
]);

const Usage = MessageObject.shape.usage;
export const MessagesStreamEvent = z.discriminatedUnion('type', [
  z.object({ type: z.literal('message_start'), message: MessageObject.extend({ stop_reason: z.null(), content: z.array(z.never()) }) }),
  z.object({ type: z.literal('ping') }),
  z.object({
    type: z.literal('content_block_start'),
    index: z.number().int(),
    content_block: z.union([
      MessageObject.shape.content.element.options[0],
      MessageObject.shape.content.element.options[1],
      ServerToolUseBlock,
      BashResultBlock,
      ComputerResultBlock,
    ]),
  }),
  z.object({
    type: z.literal('content_block_delta'),
    index: z.number().int(),
    delta: z.union([
      z.object({ type: z.literal('text_delta'), text: z.string() }),
      z.object({ type: z.literal('input_json_delta'), partial_json: z.string() }),
    ]),
  }),
  z.object({ type: z.literal('content_block_stop'), index: z.number().int() }),
  z.object({
    type: z.literal('message_delta'),
    delta: z.object({ stop_reason: MessageObject.shape.stop_reason, stop_sequence: z.null() }),
    usage: Usage.partial(),
  }),
  z.object({ type: z.literal('message_stop') }),
  z.object({ type: z.literal('error'), error: z.object({ type: z.string(), message: z.string() }) }),
]);
