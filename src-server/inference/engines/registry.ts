import type { EngineError, EngineInfo } from '../../contract/inference.js';
import { notFound } from '../../core/domain-errors.js';
import type { EnginesRepo, UpstreamRow } from '../store/engines-repo.js';
import { EchoEngine, ECHO_ENGINE } from './echo/echo-engine.js';
import { splitModel, type Engine, type EngineModel } from './engine.js';
import { AnthropicUpstream } from './upstream/anthropic-upstream.js';
import { OpenAiUpstream } from './upstream/openai-upstream.js';

const LOCAL_ENGINE = 'local';

/** A local server found by discovery (engines/discovery.ts): OpenAI-compatible, no key. */
export interface DiscoveredEngine {
  name: string;
  product: string;
  baseUrl: string;
}
const MODEL_LIST_TTL_MS = 30_000;

/**
 * The embedded engine plus one engine per configured upstream (rebuilt from the DB on
 * every change). Resolves `<engine>/<model>` names; a bare name falls back to a local
 * model of that name. Upstream model lists are cached briefly and skipped when down.
 */
export class EngineRegistry {
  private upstreams = new Map<string, { row: UpstreamRow; engine: Engine }>();
  private modelCache = new Map<string, { at: number; models: EngineModel[] }>();
  private discovered = new Map<string, { found: DiscoveredEngine; engine: Engine }>();
  /** Why an engine's model list failed last (cleared when it answers): shown beside it in Settings. */
  private lastErrors = new Map<string, EngineError>();
  /** The built-in test engine (`box/echo`): always present, listed last. */
  readonly echo = new EchoEngine();

  constructor(
    readonly local: Engine & { hasModel(name: string): boolean },
    private repo: EnginesRepo,
    private upstreamTimeoutMs: number,
    private log: { warn(...a: unknown[]): void },
  ) {}

  async reload(): Promise<void> {
    this.upstreams.clear();
    this.modelCache.clear();
    for (const row of await this.repo.list()) {
      const cfg = { name: row.name, baseUrl: row.baseUrl, apiKey: row.apiKey, timeoutMs: this.upstreamTimeoutMs };
      this.upstreams.set(row.name, { row, engine: row.kind === 'openai' ? new OpenAiUpstream(cfg) : new AnthropicUpstream(cfg) });
    }
  }

  /** Replaces the discovered engines; a configured engine of the same name wins. */
  setDiscovered(list: DiscoveredEngine[]): void {
    this.discovered.clear();
    for (const found of list) {
      this.modelCache.delete(found.name);
      const cfg = { name: found.name, baseUrl: found.baseUrl, apiKey: null, timeoutMs: this.upstreamTimeoutMs };
      this.discovered.set(found.name, { found, engine: new OpenAiUpstream(cfg) });
    }
  }

  configuredNames(): string[] {
    return [...this.upstreams.keys()];
  }

  private others(): Engine[] {
    const discovered = [...this.discovered.values()].filter((d) => !this.upstreams.has(d.found.name));
    return [...[...this.upstreams.values()].map((u) => u.engine), ...discovered.map((d) => d.engine)];
  }

  /** The engine and engine-local model name for a requested model, or 404 naming `model`. */
  resolve(model: string): { engine: Engine; model: string } {
    const split = splitModel(model);
    if (split?.engine === LOCAL_ENGINE && this.local.hasModel(split.model)) return { engine: this.local, model: split.model };
    if (split?.engine === ECHO_ENGINE && this.echo.hasModel(split.model)) return { engine: this.echo, model: split.model };
    if (split && this.upstreams.has(split.engine)) return { engine: this.upstreams.get(split.engine)!.engine, model: split.model };
    if (split && this.discovered.has(split.engine)) return { engine: this.discovered.get(split.engine)!.engine, model: split.model };
    if (!split && this.local.hasModel(model)) return { engine: this.local, model };
    throw notFound(
      `The model "${model}" does not exist: name it "<engine>/<model>" as GET /v1/models lists (engines: ${[LOCAL_ENGINE, ...this.others().map((e) => e.name), ECHO_ENGINE].join(', ')}).`,
      'model_not_found',
      'model',
    );
  }

  async listModels(): Promise<EngineModel[]> {
    const all = [this.local, ...this.others(), this.echo];
    const lists = await Promise.all(all.map((e) => this.modelsOf(e)));
    return lists.flat();
  }

  private async modelsOf(e: Engine): Promise<EngineModel[]> {
    if (e === this.local || e === this.echo) return e.listModels();
    const hit = this.modelCache.get(e.name);
    if (hit && Date.now() - hit.at < MODEL_LIST_TTL_MS) return hit.models;
    try {
      const models = await e.listModels();
      this.modelCache.set(e.name, { at: Date.now(), models });
      this.lastErrors.delete(e.name);
      return models;
    } catch (err) {
      this.noteError(e.name, { code: String((err as { code?: unknown }).code ?? 'upstream_error'), message: (err as Error).message });
      this.log.warn(`inference: model list of engine "${e.name}" unavailable:`, (err as Error).message);
      return hit?.models ?? [];
    }
  }

  /** Records the outcome of a model list or a test of an engine (null: it answered). */
  noteError(name: string, error: { code: string; message: string } | null): void {
    if (error) this.lastErrors.set(name, { ...error, at: new Date().toISOString() });
    else this.lastErrors.delete(name);
  }

  info(): EngineInfo[] {
    const local: EngineInfo = { name: LOCAL_ENGINE, kind: 'local', base_url: null, has_api_key: false, created_at: null, updated_at: null };
    const echo: EngineInfo = { name: ECHO_ENGINE, kind: 'test', base_url: null, has_api_key: false, created_at: null, updated_at: null };
    const found = [...this.discovered.values()]
      .filter((d) => !this.upstreams.has(d.found.name))
      .map(({ found: f }): EngineInfo => ({
        name: f.name,
        kind: 'openai',
        base_url: f.baseUrl,
        has_api_key: false,
        created_at: null,
        updated_at: null,
        discovered: true,
      }));
    const withError = (e: EngineInfo): EngineInfo => ({ ...e, last_error: this.lastErrors.get(e.name) ?? null });
    return [local, ...[...this.upstreams.values()].map(({ row }) => withError(upstreamInfo(row))), ...found.map(withError), echo];
  }

  status(): Record<string, unknown>[] {
    return [this.local.status(), ...this.others().map((e) => e.status()), this.echo.status()];
  }

  async close(): Promise<void> {
    await this.local.close();
  }
}

export const upstreamInfo = (row: UpstreamRow): EngineInfo => ({
  name: row.name,
  kind: row.kind,
  base_url: row.baseUrl,
  has_api_key: row.apiKey !== null,
  created_at: new Date(row.createdAt).toISOString(),
  updated_at: new Date(row.updatedAt).toISOString(),
});
