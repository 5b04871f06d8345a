import os from 'node:os';
import type { Llama, LlamaChat, LlamaContext, LlamaContextSequence, LlamaEmbeddingContext, LlamaGrammar, LlamaModel } from 'node-llama-cpp';
import { Failed, Invalid, NotFound } from '../../../../kernel/domain-errors.js';
import {
  newCallId,
  type DeltaSink,
  type NativeEmbedRequest,
  type NativeEmbeddings,
  type NativeRequest,
  type NativeResult,
  type NativeToolCall,
} from '../../native.js';
import type { Engine, EngineModel } from '../engine.js';
import { forcedCallWrapper } from './forced-call.js';
import { embedWith } from './llama-embeddings.js';
import { functionsOf, toChatHistory } from './history.js';
import type { ModelFiles } from './model-files.js';
import { Semaphore } from './semaphore.js';
import type { LlamaTuning } from '../../../../platform/settings.js';

/** Tokens kept free beside the rendered prompt (the template may render a few more when generating). */
const CONTEXT_MARGIN = 16;

/** Files under this size are "tiny": one thread each (measured: BENCHMARKS.md, "Inference", the embedded tiny model, 1 thread). */
const TINY_MODEL_BYTES = 256 * 1024 * 1024;

interface Loaded {
  model: LlamaModel;
  context: LlamaContext;
  slots: Semaphore;
  lastUsed: number;
  active: number;
  /** Made on the first embeddings request (llama-embeddings.ts). */
  embedding?: Promise<LlamaEmbeddingContext>;
}

/**
 * The embedded engine: node-llama-cpp on GGUF files from the models folder, prebuilt
 * binaries only (never builds or downloads). Models load on first use, stay warm, and
 * unload after `idleMs` without requests; each loaded model serves `sequences` requests
 * at once, further ones wait for a free sequence.
 */
export class LlamaEngine implements Engine {
  readonly name = 'local';
  readonly kind = 'local' as const;
  private llama?: Promise<Llama>;
  private loaded = new Map<string, Promise<Loaded>>();
  private grammars = new Map<string, Promise<LlamaGrammar | null>>();
  private idleTimer: NodeJS.Timeout;
  private tokensGenerated = 0;

  constructor(
    readonly files: ModelFiles,
    private tuning: LlamaTuning,
    private log: { warn(...a: unknown[]): void },
  ) {
    const idle = tuning.idleMs ?? 5 * 60_000;
    this.idleTimer = setInterval(() => void this.unloadIdle(idle), Math.max(50, Math.min(idle / 2, 30_000)));
    this.idleTimer.unref();
  }

  hasModel(name: string): boolean {
    return this.files.has(name);
  }

  isLoaded(name: string): boolean {
    return this.loaded.has(name);
  }

  async listModels(): Promise<EngineModel[]> {
    return this.files.list().map((f) => ({ id: `local/${f.name}`, created: Math.floor(f.createdAt / 1000), displayName: f.name, embeds: true }));
  }

  async embed(name: string, req: NativeEmbedRequest, signal?: AbortSignal): Promise<NativeEmbeddings> {
    const lm = await this.load(name);
    lm.active++;
    try {
      if (!lm.embedding) {
        const made = lm.model.createEmbeddingContext({ threads: lm.context.currentThreads, contextSize: lm.context.contextSize });
        made.catch(() => (lm.embedding = undefined)); // the next request tries again
        lm.embedding = made;
      }
      return await embedWith(await lm.embedding, lm.model, req, signal);
    } finally {
      lm.active--;
      lm.lastUsed = Date.now();
    }
  }

  async generate(name: string, req: NativeRequest, signal?: AbortSignal, onDelta?: DeltaSink): Promise<NativeResult> {
    // The embedded runtime reads text only (node-llama-cpp has no image input): say so, never drop the images.
    if (req.messages.some((m) => m.images?.length)) {
      throw new Invalid(`The model "local/${name}" has no vision support: it reads text only. Send the images to a model that takes images.`, {
        code: 'model_not_vision_capable',
        param: 'model',
      });
    }
    const lm = await this.load(name);
    lm.active++;
    const release = await lm.slots.acquire();
    let seq: LlamaContextSequence | undefined;
    let chat: LlamaChat | undefined;
    try {
      seq = lm.context.getSequence();
      const { LlamaChat, LlamaText } = await import('node-llama-cpp');
      chat = new LlamaChat({ contextSequence: seq });
      const functions = functionsOf(req);
      const forced = functions && (req.toolChoice === 'required' || typeof req.toolChoice === 'object');
      if (forced) {
        const base = chat.chatWrapper;
        chat.dispose();
        chat = new LlamaChat({ contextSequence: seq, chatWrapper: forcedCallWrapper(base, LlamaText) });
      }
      const grammar = req.format.type === 'json_schema' && !functions ? await this.grammarFor(req.format.schema) : null;
      const history = toChatHistory(req.messages);
      // Context honesty (issue 24): a prompt that does not fit is refused, never cut; the
      // answer may use what is left, and stops there (incomplete) rather than shift the context.
      const prompt = this.promptTokens(lm, chat, history, functions);
      const room = lm.context.contextSize - prompt - CONTEXT_MARGIN;
      if (room < 1) {
        throw new Invalid(
          `The prompt is ${prompt} tokens; the model's context holds ${lm.context.contextSize}. Shorten the conversation: nothing is truncated silently.`,
          { code: 'context_length_exceeded', param: 'messages' },
        );
      }
      const ids: string[] = [];
      const r = await chat.generateResponse(history, {
        maxTokens: Math.min(req.maxOutputTokens ?? room, room),
        temperature: req.params.temperature ?? 1,
        topP: req.params.topP,
        signal,
        stopOnAbortSignal: false,
        ...(functions ? { functions, maxParallelFunctionCalls: req.parallelToolCalls === false ? 1 : undefined } : { grammar: grammar ?? undefined }),
        onTextChunk: (t) => {
          if (t) onDelta?.({ type: 'text', text: t });
        },
        onFunctionCallParamsChunk: (c) => {
          if (ids[c.callIndex] === undefined) {
            ids[c.callIndex] = newCallId();
            onDelta?.({ type: 'tool_call', index: c.callIndex, id: ids[c.callIndex]!, name: c.functionName });
          }
          if (c.paramsChunk) onDelta?.({ type: 'tool_args', index: c.callIndex, delta: c.paramsChunk });
        },
      } as Parameters<LlamaChat['generateResponse']>[1]);
      const usage = { inputTokens: seq.tokenMeter.usedInputTokens, outputTokens: seq.tokenMeter.usedOutputTokens };
      this.tokensGenerated += usage.outputTokens;
      const fullUsage = { ...usage, cachedInputTokens: 0, cacheWriteInputTokens: 0, reasoningTokens: 0 };
      const toolCalls: NativeToolCall[] = (r.functionCalls ?? []).map((c, i) => ({
        id: ids[i] ?? newCallId(),
        name: c.functionName,
        arguments: JSON.stringify(c.params ?? {}),
      }));
      return {
        text: r.response,
        stop: toolCalls.length ? 'tool_calls' : r.metadata.stopReason === 'maxTokens' ? 'max_tokens' : 'end',
        usage: fullUsage,
        ...(toolCalls.length ? { toolCalls } : {}),
      };
    } finally {
      chat?.dispose();
      if (seq && !seq.disposed) await seq.dispose();
      release();
      lm.active--;
      lm.lastUsed = Date.now();
    }
  }

  /** Tokens of the rendered prompt (chat template applied), for the context-overflow error. */
  private promptTokens(lm: Loaded, chat: LlamaChat, history: ReturnType<typeof toChatHistory>, functions: ReturnType<typeof functionsOf>): number {
    const state = chat.chatWrapper.generateContextState({ chatHistory: history, availableFunctions: functions });
    return state.contextText.tokenize(lm.model.tokenizer).length;
  }

  private getLlama(): Promise<Llama> {
    this.llama ??= import('node-llama-cpp').then(({ getLlama, LlamaLogLevel }) =>
      getLlama({ gpu: this.tuning.gpu ?? false, build: 'never', skipDownload: true, progressLogs: false, logLevel: LlamaLogLevel.error }),
    );
    return this.llama;
  }

  private load(name: string): Promise<Loaded> {
    let p = this.loaded.get(name);
    if (!p) {
      p = this.doLoad(name);
      this.loaded.set(name, p);
      p.catch(() => this.loaded.delete(name));
    }
    return p;
  }

  private async doLoad(name: string): Promise<Loaded> {
    const file = this.files.describe(name);
    if (!file) throw new NotFound(`No local model named "${name}".`, { code: 'model_not_found', param: 'model' });
    try {
      const llama = await this.getLlama();
      const model = await llama.loadModel({ modelPath: file.file });
      const sequences = this.tuning.sequences ?? 4;
      const threads = this.tuning.threads ?? (file.sizeBytes < TINY_MODEL_BYTES ? 1 : Math.max(1, os.availableParallelism()));
      const contextSize = Math.min(this.tuning.contextSize ?? 4096, model.trainContextSize);
      const context = await model.createContext({ sequences, threads, contextSize });
      return { model, context, slots: new Semaphore(sequences), lastUsed: Date.now(), active: 0 };
    } catch (e) {
      throw new Failed(`The local model "${name}" could not be loaded: ${(e as Error).message}`, { code: 'model_load_failed' });
    }
  }

  /** The JSON-schema grammar, or null when the grammar builder cannot express the schema (validation still applies). */
  private grammarFor(schema: Record<string, unknown>): Promise<LlamaGrammar | null> {
    const key = JSON.stringify(schema);
    let g = this.grammars.get(key);
    if (!g) {
      g = this.getLlama()
        .then((llama) => llama.createGrammarForJsonSchema(schema as never) as Promise<LlamaGrammar>)
        .catch((e) => {
          this.log.warn('inference: no grammar for this JSON schema, generating unconstrained:', (e as Error).message);
          return null;
        });
      this.grammars.set(key, g);
    }
    return g;
  }

  private async unloadIdle(idleMs: number): Promise<void> {
    for (const [name, p] of this.loaded) {
      const lm = await p.catch(() => undefined);
      if (!lm || lm.active > 0 || Date.now() - lm.lastUsed < idleMs) continue;
      this.loaded.delete(name);
      await (await lm.embedding?.catch(() => undefined))?.dispose();
      await lm.context.dispose();
      await lm.model.dispose();
    }
  }

  status() {
    return { name: this.name, kind: this.kind, models: this.files.list().length, loaded: [...this.loaded.keys()], tokens_generated: this.tokensGenerated };
  }

  async close(): Promise<void> {
    clearInterval(this.idleTimer);
    for (const p of this.loaded.values()) {
      const lm = await p.catch(() => undefined);
      await (await lm?.embedding?.catch(() => undefined))?.dispose();
      await lm?.context.dispose();
      await lm?.model.dispose();
    }
    this.loaded.clear();
    if (this.llama) await (await this.llama.catch(() => undefined))?.dispose();
  }
}
