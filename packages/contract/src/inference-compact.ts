import { z } from 'zod';
import { ResponsesExtras } from './inference-extras.js';

/**
 * POST /v1/responses/compact (beyond the spec; OpenAI's and Open Responses'
 * `response.compaction`): packs a conversation into one `compaction` item that a later
 * POST /v1/responses accepts as an input item. Input items stay open-ended here; the
 * Responses adapter checks them and names the field it refuses.
 */
export const CompactBody = z.looseObject({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(z.looseObject({}))], { error: 'must be a string or an array of input items' }).nullish(),
  instructions: z.string().nullish(),
  previous_response_id: ResponsesExtras.previous_response_id,
});
export type CompactBody = z.infer<typeof CompactBody>;

const UserMessageItem = z.object({
  type: z.literal('message'),
  id: z.string(),
  role: z.literal('user'),
  status: z.literal('completed'),
  content: z.array(
    z.union([
      z.object({ type: z.literal('input_text'), text: z.string() }),
      z.object({ type: z.literal('input_image'), image_url: z.string(), detail: z.literal('auto') }),
    ]),
  ),
});

/** The compaction item: send it back as an input item; its content is opaque. */
const CompactionItem = z.object({ type: z.literal('compaction'), id: z.string(), encrypted_content: z.string() });

export const CompactedResponse = z.object({
  id: z.string(),
  object: z.literal('response.compaction'),
  created_at: z.number().int(),
  /** The conversation's user messages, then one compaction item. */
  output: z.array(z.union([UserMessageItem, CompactionItem])),
  usage: z.object({
    input_tokens: z.number().int(),
    input_tokens_details: z.object({ cached_tokens: z.number().int() }),
    output_tokens: z.number().int(),
    output_tokens_details: z.object({ reasoning_tokens: z.number().int() }),
    total_tokens: z.number().int(),
  }),
});
