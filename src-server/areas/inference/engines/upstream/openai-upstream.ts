import type { DeltaSink, NativeEmbedRequest, NativeEmbeddings, NativeImage, NativeRequest, NativeResult } from '../../native.js';
import type { Engine, EngineModel } from '../engine.js';
import { upstreamJson } from './http.js';
import { fromOpenAiEmbeddings } from './openai-embeddings.js';
import { OpenAiChunkReader } from './openai-stream.js';
import { upstreamStream } from './sse.js';

export interface UpstreamConfig {
  name: string;
  baseUrl: string;
  apiKey: string | null;
  timeoutMs: number;
}

/** Native request → OpenAI chat/completions body (pure). */
export function toOpenAiChat(model: string, req: NativeRequest): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model,
    messages: openAiMessages(req.messages),
  };
  if (req.tools?.length && req.toolChoice !== 'none') {
    body.tools = req.tools.map((t) => ({
      type: 'function',
      function: {
        name: t.name,
        ...(t.description ? { description: t.description } : {}),
        parameters: t.parameters,
        ...(t.strict !== undefined ? { strict: t.strict } : {}),
      },
    }));
    const c = req.toolChoice ?? 'auto';
    body.tool_choice = typeof c === 'string' ? c : { type: 'function', function: { name: c.name } };
    if (req.parallelToolCalls === false) body.parallel_tool_calls = false;
  }
  if (req.params.presencePenalty !== undefined) body.presence_penalty = req.params.presencePenalty;
  if (req.params.frequencyPenalty !== undefined) body.frequency_penalty = req.params.frequencyPenalty;
  if (req.params.temperature !== undefined) body.temperature = req.params.temperature;
  if (req.params.topP !== undefined) body.top_p = req.params.topP;
  if (req.maxOutputTokens !== undefined) body.max_completion_tokens = req.maxOutputTokens;
  if (req.params.reasoningEffort) body.reasoning_effort = req.params.reasoningEffort;
  if (req.params.user) body.user = req.params.user;
  if (req.format.type === 'json_schema') {
    body.response_format = {
      type: 'json_schema',
      json_schema: { name: req.format.name, schema: req.format.schema, strict: req.format.strict },
    };
  }
  return body;
}

/**
 * Native turns → chat messages. Tool results with images (the hosted computer tool's
 * screenshots) cannot carry them in a `tool` message: they follow the run of tool messages
 * as one user message (the tool messages stay right after their assistant turn).
 */
function openAiMessages(msgs: NativeRequest['messages']): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  let shots: NativeImage[] = [];
  const flush = () => {
    if (!shots.length) return;
    out.push({
      role: 'user',
      content: [{ type: 'text', text: 'The screenshots the tools returned:' }, ...shots.map((i) => ({ type: 'image_url', image_url: { url: imageUrl(i) } }))],
    });
    shots = [];
  };
  for (const m of msgs) {
    if (m.role !== 'tool') flush();
    out.push(openAiMessage(m));
    if (m.role === 'tool' && m.images?.length) shots.push(...m.images);
  }
  flush();
  return out;
}

function openAiMessage(m: NativeRequest['messages'][number]): Record<string, unknown> {
  if (m.role === 'tool') return { role: 'tool', tool_call_id: m.toolCallId, content: m.text };
  if (m.role === 'assistant' && m.toolCalls?.length) {
    return {
      role: 'assistant',
      content: m.text || null,
      tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
    };
  }
  if (m.images?.length) {
    const parts = [...(m.text ? [{ type: 'text', text: m.text }] : []), ...m.images.map((i) => ({ type: 'image_url', image_url: { url: imageUrl(i) } }))];
    return { role: m.role, content: parts };
  }
  return { role: m.role, content: m.text };
}

/** An image as OpenAI's `image_url`: a data URL for bytes, the URL as sent otherwise. */
const imageUrl = (i: NativeImage) => (i.kind === 'url' ? i.url : `data:${i.mediaType};base64,${i.data}`);

interface ChatCompletion {
  choices?: {
    message?: { content?: string | null; tool_calls?: { id?: string; function?: { name?: string; arguments?: string } }[] };
    finish_reason?: string;
  }[];
  usage?: {
    prompt_tokens?: number;
    completion_tokens?: number;
    prompt_tokens_details?: { cached_tokens?: number };
    completion_tokens_details?: { reasoning_tokens?: number };
  };
}

/** OpenAI chat.completion → native result (pure). */
export function fromOpenAiChat(body: unknown): NativeResult {
  const c = body as ChatCompletion;
  const choice = c.choices?.[0];
  const toolCalls = (choice?.message?.tool_calls ?? []).map((t, i) => ({
    id: t.id ?? `call_${i}`,
    name: t.function?.name ?? '',
    arguments: t.function?.arguments ?? '{}',
  }));
  return {
    text: choice?.message?.content ?? '',
    stop: choice?.finish_reason === 'length' ? 'max_tokens' : toolCalls.length ? 'tool_calls' : 'end',
    ...(toolCalls.length ? { toolCalls } : {}),
    usage: {
      inputTokens: c.usage?.prompt_tokens ?? 0,
      outputTokens: c.usage?.completion_tokens ?? 0,
      cachedInputTokens: c.usage?.prompt_tokens_details?.cached_tokens ?? 0,
      cacheWriteInputTokens: 0,
      reasoningTokens: c.usage?.completion_tokens_details?.reasoning_tokens ?? 0,
    },
  };
}

/** Any OpenAI-compatible server; every style reaches it as chat/completions. */
export class OpenAiUpstream implements Engine {
  readonly kind = 'openai' as const;
  readonly name: string;
  constructor(private cfg: UpstreamConfig) {
    this.name = cfg.name;
  }

  private url(p: string) {
    return `${this.cfg.baseUrl.replace(/\/+$/, '')}${p}`;
  }

  private headers(): Record<string, string> {
    return this.cfg.apiKey ? { authorization: `Bearer ${this.cfg.apiKey}` } : {};
  }

  async generate(model: string, req: NativeRequest, signal?: AbortSignal, onDelta?: DeltaSink): Promise<NativeResult> {
    if (onDelta) {
      const reader = new OpenAiChunkReader(onDelta);
      await upstreamStream(this.name, this.url('/chat/completions'), {
        headers: this.headers(),
        body: { ...toOpenAiChat(model, req), stream: true, stream_options: { include_usage: true } },
        timeoutMs: this.cfg.timeoutMs,
        signal,
        onEvent: (_event, data) => reader.push(data),
      });
      return reader.result();
    }
    const body = await upstreamJson(this.name, this.url('/chat/completions'), {
      headers: this.headers(),
      body: toOpenAiChat(model, req),
      timeoutMs: this.cfg.timeoutMs,
      signal,
    });
    return fromOpenAiChat(body);
  }

  /** Passed through to the upstream's `/embeddings` (floats asked for; the gateway encodes base64 itself). */
  async embed(model: string, req: NativeEmbedRequest, signal?: AbortSignal): Promise<NativeEmbeddings> {
    const body = await upstreamJson(this.name, this.url('/embeddings'), {
      headers: this.headers(),
      body: {
        model,
        input: req.inputs,
        encoding_format: 'float',
        ...(req.dimensions ? { dimensions: req.dimensions } : {}),
        ...(req.user ? { user: req.user } : {}),
      },
      timeoutMs: this.cfg.timeoutMs,
      signal,
    });
    return fromOpenAiEmbeddings(this.name, body, req.inputs.length);
  }

  async listModels(): Promise<EngineModel[]> {
    const body = (await upstreamJson(this.name, this.url('/models'), { headers: this.headers(), timeoutMs: 5000 })) as {
      data?: { id?: string; created?: number }[];
    };
    return (body.data ?? [])
      .filter((m) => typeof m.id === 'string')
      .map((m) => ({ id: `${this.name}/${m.id}`, created: m.created ?? 0, displayName: m.id!, ...(/embed/i.test(m.id!) ? { embeds: true } : {}) }));
  }

  status() {
    return { name: this.name, kind: this.kind, base_url: this.cfg.baseUrl };
  }

  async close() {}
}
