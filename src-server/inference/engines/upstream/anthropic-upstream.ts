import type { NativeRequest, NativeResult } from '../../native.js';
import type { Engine, EngineModel } from '../engine.js';
import { upstreamJson } from './http.js';
import type { UpstreamConfig } from './openai-upstream.js';

const ANTHROPIC_VERSION = '2023-06-01';
/** Anthropic requires max_tokens; used when the caller set no cap. */
const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

/**
 * Native request → Anthropic messages body (pure). System messages become the top-level
 * `system`; adjacent messages of one role are merged (Anthropic wants them alternating).
 */
export function toAnthropicMessages(model: string, req: NativeRequest): Record<string, unknown> {
  const system = req.messages.filter((m) => m.role === 'system').map((m) => m.text);
  const messages: { role: 'user' | 'assistant'; content: string }[] = [];
  for (const m of req.messages) {
    if (m.role === 'system') continue;
    const last = messages[messages.length - 1];
    if (last && last.role === m.role) last.content += `\n\n${m.text}`;
    else messages.push({ role: m.role, content: m.text });
  }
  const body: Record<string, unknown> = { model, messages, max_tokens: req.maxOutputTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS };
  if (system.length) body.system = system.join('\n\n');
  if (req.params.temperature !== undefined) body.temperature = Math.min(1, req.params.temperature);
  if (req.params.topP !== undefined) body.top_p = req.params.topP;
  if (req.format.type === 'json_schema') body.output_config = { format: { type: 'json_schema', schema: req.format.schema } };
  return body;
}

interface AnthropicMessage {
  content?: { type?: string; text?: string }[];
  stop_reason?: string;
  usage?: { input_tokens?: number; output_tokens?: number; cache_read_input_tokens?: number; cache_creation_input_tokens?: number };
}

/** Anthropic message → native result (pure); input tokens include cache reads and writes. */
export function fromAnthropicMessage(body: unknown): NativeResult {
  const m = body as AnthropicMessage;
  const read = m.usage?.cache_read_input_tokens ?? 0;
  const write = m.usage?.cache_creation_input_tokens ?? 0;
  return {
    text: (m.content ?? [])
      .filter((c) => c.type === 'text')
      .map((c) => c.text ?? '')
      .join(''),
    stop: m.stop_reason === 'max_tokens' ? 'max_tokens' : 'end',
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

  async generate(model: string, req: NativeRequest, signal?: AbortSignal): Promise<NativeResult> {
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
