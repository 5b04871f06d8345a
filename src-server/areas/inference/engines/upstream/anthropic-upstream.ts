import { parsedArguments, type DeltaSink, type NativeRequest, type NativeResult } from '../../native.js';
import type { Engine, EngineModel } from '../engine.js';
import { AnthropicEventReader } from './anthropic-stream.js';
import { upstreamJson } from './http.js';
import type { UpstreamConfig } from './openai-upstream.js';
import { upstreamStream } from './sse.js';

const ANTHROPIC_VERSION = '2023-06-01';
/** Anthropic requires max_tokens; used when the caller set no cap. */
const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

type Block = Record<string, unknown>;
type Turn = { role: 'user' | 'assistant'; content: string | Block[] };

const imageBlock = (i: NonNullable<NativeRequest['messages'][number]['images']>[number]): Block => ({
  type: 'image',
  source: i.kind === 'url' ? { type: 'url', url: i.url } : { type: 'base64', media_type: i.mediaType, data: i.data },
});

/** A native turn as Anthropic content: text, images, `tool_use` (assistant) and `tool_result` (tool turns, sent as user). */
function blocks(m: NativeRequest['messages'][number]): Block[] {
  if (m.role === 'tool') {
    // A result with images (the hosted computer tool's screenshot) sends them in the tool_result, as Anthropic's computer tool does.
    const content = m.images?.length ? [...(m.text ? [{ type: 'text', text: m.text }] : []), ...m.images.map(imageBlock)] : m.text;
    return [{ type: 'tool_result', tool_use_id: m.toolCallId, content, ...(m.isError ? { is_error: true } : {}) }];
  }
  const out: Block[] = m.text ? [{ type: 'text', text: m.text }] : [];
  for (const i of m.images ?? []) out.push(imageBlock(i));
  for (const c of m.toolCalls ?? []) {
    out.push({ type: 'tool_use', id: c.id, name: c.name, input: parsedArguments(c) });
  }
  return out;
}

/**
 * Native request → Anthropic messages body (pure). System messages become the top-level
 * `system`; adjacent messages of one role are merged (Anthropic wants them alternating);
 * plain text turns stay strings, turns with tool blocks become block lists.
 */
export function toAnthropicMessages(model: string, req: NativeRequest): Record<string, unknown> {
  const system = req.messages.filter((m) => m.role === 'system').map((m) => m.text);
  const messages: Turn[] = [];
  for (const m of req.messages) {
    if (m.role === 'system') continue;
    const role = m.role === 'tool' ? 'user' : m.role;
    const plain = m.role !== 'tool' && !m.toolCalls?.length && !m.images?.length;
    const last = messages[messages.length - 1];
    if (last && last.role === role) {
      if (plain && typeof last.content === 'string') last.content += `\n\n${m.text}`;
      else last.content = [...(typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content), ...blocks(m)];
    } else messages.push({ role, content: plain ? m.text : blocks(m) });
  }
  const body: Record<string, unknown> = { model, messages, max_tokens: req.maxOutputTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS };
  if (req.tools?.length) {
    body.tools = req.tools.map((t) => ({ name: t.name, ...(t.description ? { description: t.description } : {}), input_schema: t.parameters }));
    const c = req.toolChoice ?? 'auto';
    const choice: Block = typeof c === 'string' ? { type: c === 'required' ? 'any' : c } : { type: 'tool', name: c.name };
    if (req.parallelToolCalls === false && c !== 'none') choice.disable_parallel_tool_use = true;
    body.tool_choice = choice;
  }
  if (system.length) body.system = system.join('\n\n');
  if (req.params.temperature !== undefined) body.temperature = Math.min(1, req.params.temperature);
  if (req.params.topP !== undefined) body.top_p = req.params.topP;
  if (req.format.type === 'json_schema') body.output_config = { format: { type: 'json_schema', schema: req.format.schema } };
  return body;
}

interface AnthropicMessage {
  content?: { type?: string; text?: string; id?: string; name?: string; input?: unknown }[];
  stop_reason?: string;
  usage?: { input_tokens?: number; output_tokens?: number; cache_read_input_tokens?: number; cache_creation_input_tokens?: number };
}

/** Anthropic message → native result (pure); input tokens include cache reads and writes. */
export function fromAnthropicMessage(body: unknown): NativeResult {
  const m = body as AnthropicMessage;
  const read = m.usage?.cache_read_input_tokens ?? 0;
  const write = m.usage?.cache_creation_input_tokens ?? 0;
  const toolCalls = (m.content ?? [])
    .filter((c) => c.type === 'tool_use')
    .map((c, i) => ({ id: c.id ?? `call_${i}`, name: c.name ?? '', arguments: JSON.stringify(c.input ?? {}) }));
  return {
    text: (m.content ?? [])
      .filter((c) => c.type === 'text')
      .map((c) => c.text ?? '')
      .join(''),
    stop: m.stop_reason === 'max_tokens' ? 'max_tokens' : toolCalls.length ? 'tool_calls' : 'end',
    ...(toolCalls.length ? { toolCalls } : {}),
    usage: {
      inputTokens: (m.usage?.input_tokens ?? 0) + read + write,
      outputTokens: m.usage?.output_tokens ?? 0,
      cachedInputTokens: read,
      cacheWriteInputTokens: write,
      reasoningTokens: 0,
    },
  };
}

/** Any Anthropic-compatible server; every style reaches it as /v1/messages. */
export class AnthropicUpstream implements Engine {
  readonly kind = 'anthropic' as const;
  readonly name: string;
  constructor(private cfg: UpstreamConfig) {
    this.name = cfg.name;
  }

  private url(p: string) {
    return `${this.cfg.baseUrl.replace(/\/+$/, '')}${p}`;
  }

  private headers(): Record<string, string> {
    return { 'anthropic-version': ANTHROPIC_VERSION, ...(this.cfg.apiKey ? { 'x-api-key': this.cfg.apiKey } : {}) };
  }

  async generate(model: string, req: NativeRequest, signal?: AbortSignal, onDelta?: DeltaSink): Promise<NativeResult> {
    if (onDelta) {
      const reader = new AnthropicEventReader(onDelta);
      await upstreamStream(this.name, this.url('/v1/messages'), {
        headers: this.headers(),
        body: { ...toAnthropicMessages(model, req), stream: true },
        timeoutMs: this.cfg.timeoutMs,
        signal,
        onEvent: (event, data) => reader.push(event, data),
      });
      return reader.result();
    }
    const body = await upstreamJson(this.name, this.url('/v1/messages'), {
      headers: this.headers(),
      body: toAnthropicMessages(model, req),
      timeoutMs: this.cfg.timeoutMs,
      signal,
    });
    return fromAnthropicMessage(body);
  }

  async listModels(): Promise<EngineModel[]> {
    const body = (await upstreamJson(this.name, this.url('/v1/models?limit=1000'), { headers: this.headers(), timeoutMs: 5000 })) as {
      data?: { id?: string; display_name?: string; created_at?: string }[];
    };
    return (body.data ?? [])
      .filter((m) => typeof m.id === 'string')
      .map((m) => ({
        id: `${this.name}/${m.id}`,
        created: m.created_at ? Math.floor(Date.parse(m.created_at) / 1000) || 0 : 0,
        displayName: m.display_name ?? m.id!,
      }));
  }

  status() {
    return { name: this.name, kind: this.kind, base_url: this.cfg.baseUrl };
  }

  async close() {}
}
