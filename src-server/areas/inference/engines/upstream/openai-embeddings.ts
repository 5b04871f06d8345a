import { Unavailable } from '../../../../kernel/domain-errors.js';
import type { NativeEmbeddings } from '../../native.js';

interface EmbeddingsBody {
  data?: { index?: number; embedding?: unknown }[];
  usage?: { prompt_tokens?: number };
}

/** An OpenAI-style `/embeddings` answer (float vectors) → native embeddings; a malformed one is a 503 naming the engine. */
export function fromOpenAiEmbeddings(engine: string, body: unknown, count: number): NativeEmbeddings {
  const b = body as EmbeddingsBody;
  const vectors: number[][] = new Array(count);
  for (const [i, d] of (b.data ?? []).entries()) {
    const at = typeof d.index === 'number' ? d.index : i;
    if (Array.isArray(d.embedding) && d.embedding.every((x) => typeof x === 'number') && at >= 0 && at < count) vectors[at] = d.embedding;
  }
  if (vectors.filter(Boolean).length !== count) {
    throw new Unavailable(`Upstream engine "${engine}" answered embeddings without one float vector per input.`, { code: 'upstream_bad_response' });
  }
  return { vectors, inputTokens: b.usage?.prompt_tokens ?? 0 };
}
