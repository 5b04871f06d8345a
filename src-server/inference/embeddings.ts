import { randomUUID } from 'node:crypto';
import type { EmbeddingList, EmbeddingsBody } from '../contract/inference-embeddings.js';
import { invalid } from '../core/domain-errors.js';
import type { Principal } from '../core/principal.js';
import { checkBoxBudget, type BudgetDeps } from './box/budget.js';
import { boxOfKey } from './box/box-principal.js';
import type { EngineRegistry } from './engines/registry.js';
import type { InferenceService } from './inference-service.js';
import { emptyUsage } from './native.js';

/** A vector as OpenAI's `encoding_format: "base64"` sends it: little-endian float32, base64. */
function base64Vector(v: readonly number[]): string {
  const buf = Buffer.alloc(v.length * 4);
  v.forEach((x, i) => buf.writeFloatLE(x, i * 4));
  return buf.toString('base64');
}

/**
 * POST /v1/embeddings on any engine that embeds (box/echo, local GGUF models through
 * node-llama-cpp, OpenAI-style upstreams passed through): the model is resolved like a
 * generation's, a box's spent budget refuses it (429), and its input tokens are charged
 * through the same usage listeners as every inference call (nothing is stored).
 */
export class EmbeddingsService {
  constructor(
    private engines: EngineRegistry,
    private inference: Pick<InferenceService, 'usageListeners'>,
    private budgets: BudgetDeps,
    private log: { error(...a: unknown[]): void },
  ) {}

  async create(body: EmbeddingsBody, auth: Principal, signal?: AbortSignal): Promise<EmbeddingList> {
    const { engine, model } = this.engines.resolve(body.model);
    if (!engine.embed) throw invalid(`The model "${body.model}" does not make embeddings (engine kind ${engine.kind}).`, 'model', 'model_not_supported');
    if (auth.box) await checkBoxBudget(this.budgets, auth.box.id);
    const inputs = typeof body.input === 'string' ? [body.input] : isTokenIds(body.input) ? [body.input] : (body.input as (string | number[])[]);
    const out = await engine.embed(model, { inputs, dimensions: body.dimensions ?? undefined, user: body.user ?? undefined }, signal);
    this.charge(auth, body.model, out.inputTokens);
    const base64 = body.encoding_format === 'base64';
    return {
      object: 'list',
      data: out.vectors.map((v, index) => ({ object: 'embedding' as const, index, embedding: base64 ? base64Vector(v) : v })),
      model: body.model,
      usage: { prompt_tokens: out.inputTokens, total_tokens: out.inputTokens },
    };
  }

  private charge(auth: Principal, model: string, inputTokens: number) {
    const e = {
      orgId: auth.orgId,
      keyId: auth.key.id,
      boxId: boxOfKey(auth.key.id),
      responseId: `emb_${randomUUID().replaceAll('-', '')}`,
      model,
      usage: { ...emptyUsage(), inputTokens },
    };
    for (const fn of this.inference.usageListeners) {
      try {
        fn(e);
      } catch (err) {
        this.log.error('inference: usage listener failed', err);
      }
    }
  }
}

const isTokenIds = (input: unknown): input is number[] => Array.isArray(input) && typeof input[0] === 'number';
