import type { DeltaSink, NativeEmbedRequest, NativeEmbeddings, NativeRequest, NativeResult } from '../native.js';

/** A model as an engine lists it; `id` is already `<engine>/<model>`. */
export interface EngineModel {
  id: string;
  /** Unix seconds. */
  created: number;
  displayName: string;
  /** The model answers POST /v1/embeddings (GET /v1/models shows `capabilities: ["embedding"]`). */
  embeds?: boolean;
}

/**
 * An inference engine. Contract: `generate` gets the engine-local model name (the part
 * after `<engine>/`) and either resolves a NativeResult or throws a domain error
 * (core/domain-errors.ts) that is safe to show the caller (upstream failures are mapped, never passed through raw).
 */
export interface Engine {
  readonly name: string;
  readonly kind: 'local' | 'openai' | 'anthropic' | 'test';
  listModels(): Promise<EngineModel[]>;
  /**
   * `signal` aborts when the caller went away: the engine stops its upstream call or
   * generation. With `onDelta` the request is streamed: the engine reports text and tool
   * calls as they come (upstreams are then called with `stream: true`), and still resolves
   * the complete result.
   */
  generate(model: string, req: NativeRequest, signal?: AbortSignal, onDelta?: DeltaSink): Promise<NativeResult>;
  /** Embeddings (POST /v1/embeddings); engines without it answer 400 for every model. */
  embed?(model: string, req: NativeEmbedRequest, signal?: AbortSignal): Promise<NativeEmbeddings>;
  status(): Record<string, unknown>;
  close(): Promise<void>;
}

/** Splits `<engine>/<model>`; the model part may itself contain slashes. */
export function splitModel(id: string): { engine: string; model: string } | null {
  const i = id.indexOf('/');
  if (i <= 0 || i === id.length - 1) return null;
  return { engine: id.slice(0, i), model: id.slice(i + 1) };
}
