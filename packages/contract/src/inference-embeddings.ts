import { z } from 'zod';

/**
 * POST /v1/embeddings (beyond the spec; OpenAI's Embeddings API). `input`: a string, an
 * array of strings, an array of token ids, or an array of such arrays (at most 2048 inputs);
 * `encoding_format`: `float` (default) or `base64` (little-endian float32, as OpenAI's);
 * `dimensions`: a shorter vector (box/echo and local models cut and rescale theirs;
 * upstreams get it as sent).
 */
const TokenIds = z.array(z.number().int().min(0)).min(1);
export const EmbeddingsBody = z.looseObject({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(z.string()).min(1).max(2048), TokenIds, z.array(TokenIds).min(1).max(2048)], {
    error: 'must be a string, an array of strings, an array of token ids, or an array of token-id arrays',
  }),
  encoding_format: z.enum(['float', 'base64']).nullish(),
  dimensions: z.number().int().min(1).max(65536).nullish(),
  user: z.string().nullish(),
});
export type EmbeddingsBody = z.infer<typeof EmbeddingsBody>;

export const EmbeddingList = z.object({
  object: z.literal('list'),
  data: z.array(z.object({ object: z.literal('embedding'), index: z.number().int(), embedding: z.union([z.array(z.number()), z.string()]) })),
  model: z.string(),
  usage: z.object({ prompt_tokens: z.number().int(), total_tokens: z.number().int() }),
});
export type EmbeddingList = z.infer<typeof EmbeddingList>;
