import type { DeltaSink, NativeResult, NativeToolCall } from '../../native.js';
import { emptyUsage } from '../../native.js';
import { upstreamStreamError } from './sse.js';

interface Chunk {
  error?: { message?: string };
  choices?: {
    delta?: { content?: string | null; tool_calls?: { index?: number; id?: string; function?: { name?: string; arguments?: string } }[] };
    finish_reason?: string | null;
  }[];
  usage?: {
    prompt_tokens?: number;
    completion_tokens?: number;
    prompt_tokens_details?: { cached_tokens?: number };
    completion_tokens_details?: { reasoning_tokens?: number };
  } | null;
}

/**
 * An OpenAI-compatible upstream's `chat.completion.chunk` stream → native deltas and the
 * complete result (pure, fed one SSE `data` at a time; `[DONE]` ends it).
 */
export class OpenAiChunkReader {
  private text = '';
  private calls: NativeToolCall[] = [];
  /** Upstream tool-call index → ours. */
  private indexes = new Map<number, number>();
  private finish: string | null = null;
  private usage = emptyUsage();

  constructor(private onDelta: DeltaSink) {}

  push(data: string): void {
    if (data === '[DONE]') return;
    const c = JSON.parse(data) as Chunk;
    if (c.error) throw upstreamStreamError(c.error.message ?? 'stream error');
    const choice = c.choices?.[0];
    const d = choice?.delta;
    if (d?.content) {
      this.text += d.content;
      this.onDelta({ type: 'text', text: d.content });
    }
    for (const t of d?.tool_calls ?? []) {
      const up = t.index ?? 0;
      let i = this.indexes.get(up);
      if (i === undefined) {
        i = this.calls.length;
        this.indexes.set(up, i);
        this.calls.push({ id: t.id ?? `call_${i}`, name: t.function?.name ?? '', arguments: '' });
        this.onDelta({ type: 'tool_call', index: i, id: this.calls[i]!.id, name: this.calls[i]!.name });
      }
      const args = t.function?.arguments;
      if (args) {
        this.calls[i]!.arguments += args;
        this.onDelta({ type: 'tool_args', index: i, delta: args });
      }
    }
    if (choice?.finish_reason) this.finish = choice.finish_reason;
    if (c.usage) {
      this.usage = {
        ...emptyUsage(),
        inputTokens: c.usage.prompt_tokens ?? 0,
        outputTokens: c.usage.completion_tokens ?? 0,
        cachedInputTokens: c.usage.prompt_tokens_details?.cached_tokens ?? 0,
        reasoningTokens: c.usage.completion_tokens_details?.reasoning_tokens ?? 0,
      };
    }
  }

  result(): NativeResult {
    const toolCalls = this.calls.map((c) => ({ ...c, arguments: c.arguments || '{}' }));
    return {
      text: this.text,
      stop: this.finish === 'length' ? 'max_tokens' : toolCalls.length ? 'tool_calls' : 'end',
      usage: this.usage,
      ...(toolCalls.length ? { toolCalls } : {}),
    };
  }
}
