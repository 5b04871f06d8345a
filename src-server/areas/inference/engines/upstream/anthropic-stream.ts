import type { DeltaSink, NativeResult, NativeToolCall } from '../../native.js';
import { emptyUsage } from '../../native.js';
import { upstreamStreamError } from './sse.js';

interface Event {
  type?: string;
  index?: number;
  message?: { usage?: Usage };
  content_block?: { type?: string; id?: string; name?: string; text?: string };
  delta?: { type?: string; text?: string; partial_json?: string; stop_reason?: string | null };
  usage?: Usage;
  error?: { message?: string };
}
interface Usage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}

/**
 * An Anthropic-compatible upstream's Messages stream → native deltas and the complete
 * result (pure, fed one SSE event at a time). Input tokens include cache reads and writes.
 */
export class AnthropicEventReader {
  private text = '';
  private calls: NativeToolCall[] = [];
  /** Content block index → our tool-call index. */
  private blocks = new Map<number, number>();
  private stop: string | null = null;
  private usage = emptyUsage();

  constructor(private onDelta: DeltaSink) {}

  push(event: string | undefined, data: string): void {
    const e = JSON.parse(data) as Event;
    const type = e.type ?? event;
    if (type === 'error') throw upstreamStreamError(e.error?.message ?? 'stream error');
    if (type === 'message_start') this.addUsage(e.message?.usage);
    else if (type === 'content_block_start' && e.content_block?.type === 'tool_use') {
      const i = this.calls.length;
      this.blocks.set(e.index ?? 0, i);
      this.calls.push({ id: e.content_block.id ?? `call_${i}`, name: e.content_block.name ?? '', arguments: '' });
      this.onDelta({ type: 'tool_call', index: i, id: this.calls[i]!.id, name: this.calls[i]!.name });
    } else if (type === 'content_block_delta') {
      if (e.delta?.type === 'text_delta' && e.delta.text) {
        this.text += e.delta.text;
        this.onDelta({ type: 'text', text: e.delta.text });
      } else if (e.delta?.type === 'input_json_delta' && e.delta.partial_json) {
        const i = this.blocks.get(e.index ?? 0);
        if (i === undefined) return;
        this.calls[i]!.arguments += e.delta.partial_json;
        this.onDelta({ type: 'tool_args', index: i, delta: e.delta.partial_json });
      }
    } else if (type === 'message_delta') {
      if (e.delta?.stop_reason) this.stop = e.delta.stop_reason;
      this.addUsage(e.usage);
    }
  }

  private addUsage(u: Usage | undefined) {
    if (!u) return;
    const read = u.cache_read_input_tokens ?? 0;
    const write = u.cache_creation_input_tokens ?? 0;
    if (u.input_tokens !== undefined) {
      this.usage.inputTokens = u.input_tokens + read + write;
      this.usage.cachedInputTokens = read;
      this.usage.cacheWriteInputTokens = write;
    }
    if (u.output_tokens !== undefined) this.usage.outputTokens = u.output_tokens;
  }

  result(): NativeResult {
    const toolCalls = this.calls.map((c) => ({ ...c, arguments: c.arguments || '{}' }));
    return {
      text: this.text,
      stop: this.stop === 'max_tokens' ? 'max_tokens' : toolCalls.length ? 'tool_calls' : 'end',
      usage: this.usage,
      ...(toolCalls.length ? { toolCalls } : {}),
    };
  }
}
