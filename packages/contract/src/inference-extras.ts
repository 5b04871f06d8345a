import { z } from 'zod';

/**
 * Request fields beyond the spec (issue 24): streaming, tools, conversation state and the
 * Open Responses fields. Tools and messages stay open-ended here; the adapters check them
 * and name the field they refuse.
 */
const penalty = z.number().min(-2).max(2).nullish();

export const ResponsesExtras = {
  stream: z.boolean().nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  previous_response_id: z
    .string()
    .regex(/^(resp_|chatcmpl-|msg_)[A-Za-z0-9_-]{1,100}$/, 'must be a stored response id')
    .nullish(),
  presence_penalty: penalty,
  frequency_penalty: penalty,
  top_logprobs: z.number().int().min(0).max(20).nullish(),
  max_tool_calls: z.number().int().min(1).nullish(),
  safety_identifier: z.string().max(64).nullish(),
  prompt_cache_key: z.string().max(1024).nullish(),
};

export const ChatExtras = {
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  presence_penalty: penalty,
  frequency_penalty: penalty,
};
