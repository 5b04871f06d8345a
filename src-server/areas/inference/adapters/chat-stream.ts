import type { NativeDelta } from '../native.js';
import type { StoredResponse } from '../store/responses-repo.js';
import { chatFinish, chatUsage } from './chat.js';
import { frame, type StreamError, type StreamWriter } from './stream-frames.js';

/**
 * Chat Completions' stream: `chat.completion.chunk` objects as bare `data:` frames (the
 * first with the role, then content and tool-call deltas, then the finish reason), with
 * `stream_options.include_usage` a last chunk with no choices and the usage, then
 * `data: [DONE]`. An error is a `data: {"error": {...}}` frame, which the SDKs throw.
 */
export class ChatStream implements StreamWriter {
  private head: Record<string, unknown> = {};
  /** The serialized head up to the delta (the same for every chunk of the stream, so written once). */
  private pre = '';

  constructor(private includeUsage: boolean) {}

  private chunk(delta: Record<string, unknown>, finish: string | null = null): string {
    // Byte for byte frame(null, {...head, choices: [{index, delta, logprobs, finish_reason}], usage?}).
    return `${this.pre}${JSON.stringify(delta)},"logprobs":null,"finish_reason":${JSON.stringify(finish)}}]${this.includeUsage ? ',"usage":null' : ''}}\n\n`;
  }

  start(r: StoredResponse): string {
    this.head = {
      id: r.id,
      object: 'chat.completion.chunk',
      created: Math.floor(r.createdAt / 1000),
      model: r.native.model,
      service_tier: 'default',
      system_fingerprint: null,
    };
    this.pre = `data: ${JSON.stringify(this.head).slice(0, -1)},"choices":[{"index":0,"delta":`;
    return this.chunk({ role: 'assistant', content: '', refusal: null });
  }

  delta(d: NativeDelta): string {
    if (d.type === 'text') return this.chunk({ content: d.text });
    if (d.type === 'tool_call') return this.chunk({ tool_calls: [{ index: d.index, id: d.id, type: 'function', function: { name: d.name, arguments: '' } }] });
    return this.chunk({ tool_calls: [{ index: d.index, function: { arguments: d.delta } }] });
  }

  finish(r: StoredResponse): string {
    let out = this.chunk({}, chatFinish(r.result!.stop));
    if (this.includeUsage) out += frame(null, { ...this.head, choices: [], usage: chatUsage(r) });
    return `${out}data: [DONE]\n\n`;
  }

  error(e: StreamError): string {
    return frame(null, { error: { message: e.message, type: e.type, param: e.param, code: e.code } });
  }
}
