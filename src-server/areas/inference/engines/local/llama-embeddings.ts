import type { LlamaEmbeddingContext, LlamaModel, Token } from 'node-llama-cpp';
import { Invalid } from '../../../../kernel/domain-errors.js';
import { unitVector, type NativeEmbedRequest, type NativeEmbeddings } from '../../native.js';

/**
 * Embeddings on a loaded GGUF model through node-llama-cpp's embedding context
 * (`getEmbeddingFor`, which evaluates one input at a time on its own sequence). Vectors are
 * scaled to unit length (OpenAI's are), cut first to `dimensions` when asked. An input
 * longer than the context is refused (400), as OpenAI refuses one over its model's limit.
 */
export async function embedWith(ctx: LlamaEmbeddingContext, model: LlamaModel, req: NativeEmbedRequest, signal?: AbortSignal): Promise<NativeEmbeddings> {
  const vectors: number[][] = [];
  let inputTokens = 0;
  for (const [i, input] of req.inputs.entries()) {
    signal?.throwIfAborted();
    const tokens = typeof input === 'string' ? model.tokenize(input) : (input as Token[]);
    if (tokens.length > model.trainContextSize) {
      throw new Invalid(`input[${i}] has ${tokens.length} tokens; this model embeds at most ${model.trainContextSize}.`, { param: 'input' });
    }
    inputTokens += tokens.length;
    const e = await ctx.getEmbeddingFor(tokens);
    vectors.push(unitVector(e.vector, req.dimensions));
  }
  return { vectors, inputTokens };
}
