import { z } from 'zod';
import {
  BashResultBlock,
  CodeExecutionTool,
  ComputerCallItem,
  ComputerCallOutputItem,
  ComputerResultBlock,
  ComputerUseTool,
  MessagesComputerTool,
  CodeInterpreterCallItem,
  CodeInterpreterTool,
  ServerToolUseBlock,
  ShellCallItem,
  ShellCallOutputItem,
  ShellTool,
} from './inference-hosted.js';

/**
 * The answers of the three inference styles, as the official `openai` and
 * `@anthropic-ai/sdk` clients read them (inference/adapters/*). The fields we fill are
 * typed; objects whose content follows the caller (reasoning, text format, metadata) stay
 * open.
 */
const Open = z.record(z.string(), z.unknown());

export const OutputMessage = z.object({
  type: z.literal('message'),
  id: z.string(),
  role: z.literal('assistant'),
  status: z.enum(['completed', 'incomplete']),
  content: z.array(z.object({ type: z.literal('output_text'), text: z.string(), annotations: z.array(z.unknown()), logprobs: z.array(z.unknown()) })),
});

export const FunctionCallItem = z.object({
  type: z.literal('function_call'),
  id: z.string(),
  call_id: z.string(),
  name: z.string(),
  /** The namespace tool the function belongs to (Responses `namespace` tools). */
  namespace: z.string().optional(),
  arguments: z.string(),
  status: z.enum(['in_progress', 'completed', 'incomplete']),
});

const FunctionTool = z.object({
  type: z.literal('function'),
  name: z.string(),
  description: z.string().nullable(),
  parameters: Open,
  strict: z.boolean().nullable(),
});

/** A Responses `namespace` tool: function tools grouped under one name (Codex CLI sends them). */
const NamespaceTool = z.object({ type: z.literal('namespace'), name: z.string(), tools: z.array(FunctionTool) });

/** Responses API object (also what GET /v1/responses/{id} answers for every style). */
export const ResponseObject = z.object({
  id: z.string(),
  object: z.literal('response'),
  created_at: z.number(),
  status: z.enum(['queued', 'in_progress', 'completed', 'incomplete', 'failed', 'cancelled']),
  background: z.boolean(),
  completed_at: z.number().nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  /** `max_tool_calls`: the hosted tools' loop reached its bound (beyond OpenAI's reasons). */
  incomplete_details: z.object({ reason: z.enum(['max_output_tokens', 'max_tool_calls']) }).nullable(),
  instructions: z.string().nullable(),
  max_output_tokens: z.number().int().nullable(),
  model: z.string(),
  output: z.array(
    z.union([OutputMessage, FunctionCallItem, CodeInterpreterCallItem, ShellCallItem, ShellCallOutputItem, ComputerCallItem, ComputerCallOutputItem]),
  ),
  parallel_tool_calls: z.boolean(),
  previous_response_id: z.string().nullable(),
  reasoning: Open,
  service_tier: z.string(),
  store: z.boolean(),
  temperature: z.number(),
  text: z.object({ format: Open }),
  tool_choice: z.union([
    z.enum(['none', 'auto', 'required']),
    z.object({ type: z.literal('function'), name: z.string() }),
    /** A hosted tool (inference/hosted/). */
    z.object({ type: z.enum(['code_interpreter', 'shell', 'bash_code_execution']) }),
  ]),
  tools: z.array(z.union([FunctionTool, NamespaceTool, CodeInterpreterTool, ShellTool, CodeExecutionTool, ComputerUseTool, MessagesComputerTool])),
  top_p: z.number(),
  truncation: z.string(),
  usage: z
    .object({
      input_tokens: z.number().int(),
      input_tokens_details: z.object({ cached_tokens: z.number().int(), cache_write_tokens: z.number().int() }),
      output_tokens: z.number().int(),
      output_tokens_details: z.object({ reasoning_tokens: z.number().int() }),
      total_tokens: z.number().int(),
    })
    .nullable(),
  user: z.string().nullable(),
  presence_penalty: z.number(),
  frequency_penalty: z.number(),
  top_logprobs: z.number().int(),
  max_tool_calls: z.number().int().nullable(),
  safety_identifier: z.string().nullable(),
  prompt_cache_key: z.string().nullable(),
  metadata: z.record(z.string(), z.string()),
});
export type ResponseObject = z.infer<typeof ResponseObject>;

export const ChatCompletion = z.object({
  id: z.string(),
  object: z.literal('chat.completion'),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(
    z.object({
      index: z.number().int(),
      message: z.object({
        role: z.literal('assistant'),
        content: z.string().nullable(),
        refusal: z.null(),
        annotations: z.array(z.unknown()),
        tool_calls: z
          .array(z.object({ id: z.string(), type: z.literal('function'), function: z.object({ name: z.string(), arguments: z.string() }) }))
          .optional(),
      }),
      finish_reason: z.enum(['stop', 'length', 'tool_calls']),
      logprobs: z.null(),
    }),
  ),
  usage: z.object({
    prompt_tokens: z.number().int(),
    completion_tokens: z.number().int(),
    total_tokens: z.number().int(),
    prompt_tokens_details: z.object({ cached_tokens: z.number().int() }),
    completion_tokens_details: z.object({ reasoning_tokens: z.number().int() }),
  }),
  service_tier: z.string(),
  system_fingerprint: z.null(),
});

export const MessageObject = z.object({
  id: z.string(),
  type: z.literal('message'),
  role: z.literal('assistant'),
  model: z.string(),
  content: z.array(
    z.union([
      z.object({ type: z.literal('text'), text: z.string() }),
      z.object({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.unknown() }),
      ServerToolUseBlock,
      BashResultBlock,
      ComputerResultBlock,
    ]),
  ),
  /** `pause_turn`: the code execution loop reached its bound. */
  stop_reason: z.enum(['end_turn', 'max_tokens', 'tool_use', 'pause_turn']),
  /** The box the code execution tool ran in (send its id as `container` to reuse it). */
  container: z.object({ id: z.string(), expires_at: z.string() }).optional(),
  stop_sequence: z.null(),
  usage: z.object({
    input_tokens: z.number().int(),
    output_tokens: z.number().int(),
    cache_creation_input_tokens: z.number().int(),
    cache_read_input_tokens: z.number().int(),
    service_tier: z.string(),
  }),
});

/** Operations the spec lists but this service does not offer: they answer 501, never 2xx. */
export const NeverSucceeds = z.never();
