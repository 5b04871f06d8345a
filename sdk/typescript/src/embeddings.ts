import type { Http } from './http.js';
import { op } from './ops.js';
import type { EmbeddingList, EmbeddingsBody } from './types.js';

/** Embeddings (POST /v1/embeddings, OpenAI-style): box/echo, local GGUF models, OpenAI-style upstream engines. */
export class Embeddings {
  /** @internal */
  constructor(private readonly http: Http) {}

  /** The raw answer: `encoding_format: "base64"` gives base64 strings (little-endian float32). */
  create(body: EmbeddingsBody, o: { signal?: AbortSignal } = {}): Promise<EmbeddingList> {
    return op(this.http, 'POST /v1/embeddings', { body, signal: o.signal });
  }

  /** One vector per text, as numbers (`dimensions` shortens them where the model supports it). */
  async embed(model: string, input: string | string[], o: { dimensions?: number; signal?: AbortSignal } = {}): Promise<number[][]> {
    const r = await this.create({ model, input, encoding_format: 'float', dimensions: o.dimensions }, o);
    return r.data.map((d) => d.embedding as number[]);
  }
}
