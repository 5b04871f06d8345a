import { randomUUID } from 'node:crypto';
import type { AppBase } from '../app-context.js';
import type { Db } from '../db/connection.js';
import type { Principal } from '../core/principal.js';
import { DomainError, Failed } from '../core/domain-errors.js';
import type { Prepared } from './adapters/common.js';
import { checkBoxBudget, type BudgetDeps } from './box/budget.js';
import { compactionObject } from './compaction.js';
import { boxOfKey } from './box/box-principal.js';
import type { EngineRegistry } from './engines/registry.js';
import type { HostedLoop } from './hosted/hosted-loop.js';
import type { DeltaSink, HostedEvent, NativeRequest, NativeResult, StoredError, WireStyle } from './native.js';
import type { ResponsesRepo, StoredResponse } from './store/responses-repo.js';
import { ResponseWriteBehind } from './store/write-behind.js';
import { checkStructured, schemaValidator } from './structured.js';
import type { DeliveriesRepo } from './webhooks/deliveries-repo.js';

const ID_PREFIX: Record<WireStyle, string> = { responses: 'resp_', chat: 'chatcmpl-', messages: 'msg_' };
const newResponseId = (style: WireStyle) => `${ID_PREFIX[style]}${randomUUID().replaceAll('-', '')}`;

const SCHEMA_PARAM: Record<WireStyle, string> = {
  responses: 'text.format.schema',
  chat: 'response_format.json_schema.schema',
  messages: 'output_config.format.schema',
};

/** A finished request's token usage (for the usage/billing area: `service.usageListeners.push(fn)`). */
interface UsageEvent {
  orgId: string;
  keyId: string;
  responseId: string;
  model: string;
  /** The box the request came from through its egress proxy, else null. */
  boxId: string | null;
  usage: NativeResult['usage'];
}

/** A streamed request: `started` once checked (its id is known), then the engine's deltas. */
interface StreamHooks {
  started(r: StoredResponse): void;
  onDelta: DeltaSink;
  /** Hosted tool calls as they run (hosted/hosted-loop.ts). */
  onHosted?: (e: HostedEvent) => void;
}

interface InferenceHooks {
  /** A delivery row changed: re-arm the webhook timer. */
  webhooksChanged(): void;
  /** A background request was queued. */
  queued(): void;
}

/**
 * The one handler behind every wire style: checks a prepared request (model exists,
 * schema compiles), runs it on its engine, validates structured output (retrying), and
 * stores it with its webhook delivery in one transaction.
 */
export class InferenceService {
  readonly usageListeners: ((e: UsageEvent) => void)[] = [];
  /** Finished synchronous requests are stored just after their answer leaves (store/write-behind.ts). */
  readonly writer: ResponseWriteBehind;
  /** Synchronous requests between their check and their answer (the writer batches while any are). */
  private running = 0;
  /** Runs hosted tools' calls in boxes (hosted/hosted-loop.ts); the module sets it. */
  hosted: HostedLoop | null = null;

  constructor(
    private app: AppBase,
    readonly engines: EngineRegistry,
    readonly responses: ResponsesRepo,
    private deliveries: DeliveriesRepo,
    private hooks: InferenceHooks,
    private webhookRounds: number,
    private structuredAttempts: number,
    private fast: { db: Db; responses: ResponsesRepo; deliveries: DeliveriesRepo },
    private budgets: BudgetDeps,
  ) {
    this.writer = new ResponseWriteBehind(
      fast,
      () => hooks.webhooksChanged(),
      app.log,
      () => this.running === 0,
    );
  }

  async get(id: string): Promise<StoredResponse | undefined> {
    return this.writer.get(id) ?? (await this.responses.get(id));
  }

  /** 404 for an unknown model, 400 for a schema that does not compile, 429 for a spent box budget; before anything is stored. */
  async check(style: WireStyle, p: Prepared, auth?: Principal): Promise<void> {
    this.engines.resolve(p.native.model);
    if (auth?.box) await checkBoxBudget(this.budgets, auth.box.id);
    if (p.native.format.type === 'json_schema') schemaValidator(p.native.format.schema, SCHEMA_PARAM[style]);
    if (auth && p.native.hosted?.length) await this.hosted?.check(p.native, auth, p.background);
  }

  /** POST /v1/responses/compact: a known model (404 otherwise); no engine runs (compaction.ts). */
  compact(p: Prepared) {
    this.engines.resolve(p.native.model);
    return compactionObject(p.native.model, p.native.messages);
  }

  /**
   * Runs now; the finished request is stored just after the answer leaves, batched with the
   * others of the same turn (store/write-behind.ts), unless `store: false` (charged all the
   * same). Errors go to the caller and nothing is stored.
   */
  async runSync(style: WireStyle, p: Prepared, auth: Principal, signal?: AbortSignal, stream?: StreamHooks): Promise<StoredResponse> {
    await this.check(style, p, auth);
    const createdAt = Date.now();
    const stored = this.record(style, p, auth, createdAt);
    stream?.started(stored);
    let result: NativeResult;
    this.running++;
    try {
      result = await this.generate(stored, auth, signal, stream);
    } finally {
      this.running--;
    }
    stored.status = result.stop === 'max_tokens' || result.hostedLimit ? 'incomplete' : 'completed';
    stored.result = result;
    stored.startedAt = createdAt;
    stored.completedAt = Date.now();
    if (p.store) this.writer.add(stored, p.webhook ? { ...this.delivery(stored, p), state: 'pending' } : null);
    this.emitUsage(stored);
    return stored;
  }

  private emitUsage(r: StoredResponse): void {
    if (!r.result) return;
    const e = { orgId: r.orgId, keyId: r.keyId, boxId: boxOfKey(r.keyId), responseId: r.id, model: r.native.model, usage: r.result.usage };
    for (const fn of this.usageListeners) {
      try {
        fn(e);
      } catch (err) {
        this.app.log.error('inference: usage listener failed', err);
      }
    }
  }

  /** Stores the request as `queued`; the background queue runs it. */
  async enqueue(style: WireStyle, p: Prepared, auth: Principal): Promise<StoredResponse> {
    await this.check(style, p, auth);
    const stored = this.record(style, p, auth, Date.now());
    await this.app.db.transaction(async () => {
      await this.responses.insert(stored);
      if (p.webhook) await this.deliveries.create({ ...this.delivery(stored, p), state: 'waiting' }, stored.createdAt);
    });
    this.hooks.queued();
    return stored;
  }

  /** Runs a stored queued request (background queue); never throws. */
  async runStored(id: string): Promise<void> {
    const r = await this.responses.get(id);
    if (!r || !(await this.responses.markStarted(id, Date.now()))) return;
    let result: NativeResult | null = null;
    let error: StoredError | null = null;
    try {
      this.engines.resolve(r.native.model);
      result = await this.execute(r.native);
    } catch (e) {
      error =
        e instanceof DomainError
          ? { code: String(e.code ?? e.type), message: e.message }
          : { code: 'server_error', message: 'The request failed unexpectedly.' };
      if (!(e instanceof DomainError)) this.app.log.error('inference: background request failed', e, { response_id: id, model: r.native.model });
    }
    const status = result ? (result.stop === 'max_tokens' ? 'incomplete' : 'completed') : 'failed';
    const at = Date.now();
    const activated = await this.app.db.transaction(async () => {
      await this.responses.finish(id, status, result, error, at);
      return await this.deliveries.activate(id, status !== 'failed', at);
    });
    if (activated) this.hooks.webhooksChanged();
    if (result) this.emitUsage({ ...r, result });
  }

  /** The engine call, through the hosted tools' loop when the request has hosted tools. */
  private generate(r: StoredResponse, auth: Principal, signal?: AbortSignal, stream?: StreamHooks): Promise<NativeResult> {
    const run = (n: NativeRequest, onDelta?: DeltaSink) => this.execute(n, signal, onDelta);
    if (!this.hosted || !r.native.hosted?.length) return run(r.native, stream?.onDelta);
    const previousId = r.echo.previous_response_id as string | undefined;
    return this.hosted.run(r.native, { auth, responseId: r.id, previousId, signal, onDelta: stream?.onDelta, onHosted: stream?.onHosted }, run);
  }

  /**
   * Engine call plus JSON-schema validation; an invalid structured output is retried (not
   * when streamed: what was sent cannot be taken back, the stream ends in an error). Tool
   * calls beyond `parallel_tool_calls: false` or `max_tool_calls` are dropped.
   */
  async execute(native: NativeRequest, signal?: AbortSignal, onDelta?: DeltaSink): Promise<NativeResult> {
    const { engine, model } = this.engines.resolve(native.model);
    const validate = native.format.type === 'json_schema' ? schemaValidator(native.format.schema, 'schema') : null;
    const maxCalls = native.parallelToolCalls === false ? 1 : (native.maxToolCalls ?? Infinity);
    const sink: DeltaSink | undefined = onDelta && maxCalls !== Infinity ? (d) => (d.type === 'text' || d.index < maxCalls ? onDelta(d) : undefined) : onDelta;
    let why = '';
    const attempts = onDelta ? 1 : this.structuredAttempts;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      const result = await engine.generate(model, native, signal, sink);
      if (result.toolCalls && result.toolCalls.length > maxCalls) result.toolCalls = result.toolCalls.slice(0, maxCalls);
      if (!validate || result.stop === 'max_tokens' || result.stop === 'tool_calls') return result;
      const problem = checkStructured(validate, result.text);
      if (!problem) return result;
      why = problem;
    }
    throw new Failed(`The model's output did not match the JSON schema after ${attempts} attempt${attempts > 1 ? 's' : ''}: ${why}`, {
      code: 'output_validation_failed',
    });
  }

  private record(style: WireStyle, p: Prepared, auth: Principal, createdAt: number): StoredResponse {
    const { webhook_token: _secret, ...metadata } = p.metadata;
    return {
      id: newResponseId(style),
      orgId: auth.orgId,
      keyId: auth.key.id,
      style,
      status: p.background ? 'queued' : 'in_progress',
      background: p.background,
      native: p.native,
      echo: p.echo,
      metadata,
      result: null,
      error: null,
      createdAt,
      startedAt: null,
      completedAt: null,
    };
  }

  private delivery(r: StoredResponse, p: Prepared) {
    return { responseId: r.id, orgId: r.orgId, url: p.webhook!.url, token: p.webhook!.token, roundLimit: this.webhookRounds };
  }
}
