import type { HostedEvent, NativeDelta } from '../native.js';
import { hostedMessagesFrames } from '../hosted/hosted-stream.js';
import type { StoredResponse } from '../store/responses-repo.js';
import { messagesStopOf, messagesUsage } from './messages.js';
import { frame, type StreamError, type StreamWriter } from './stream-frames.js';

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  429: 'rate_limit_error',
  503: 'overloaded_error',
};

/**
 * The Messages API's stream: `message_start`, `ping`, per content block
 * `content_block_start`, `content_block_delta` (`text_delta`, `input_json_delta`) and
 * `content_block_stop`, then `message_delta` with the stop reason and usage, and
 * `message_stop`; an error is an `error` event.
 */
export class MessagesStream implements StreamWriter {
  private blocks = 0;
  /** The open block: text, or a tool call (its native index). */
  private open: { index: number; call: number | null } | null = null;
  /** Native tool-call index → block index. */
  private callBlocks = new Map<number, number>();

  private ev(type: string, body: Record<string, unknown> = {}): string {
    return frame(type, { type, ...body });
  }

  start(r: StoredResponse): string {
    const message = {
      id: r.id,
      type: 'message',
      role: 'assistant',
      model: r.native.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, service_tier: 'standard' },
    };
    return this.ev('message_start', { message }) + this.ev('ping');
  }

  private close(): string {
    if (!this.open) return '';
    const index = this.open.index;
    this.open = null;
    return this.ev('content_block_stop', { index });
  }

  private startBlock(block: Record<string, unknown>, call: number | null): string {
    const out = this.close();
    this.open = { index: this.blocks++, call };
    return out + this.ev('content_block_start', { index: this.open.index, content_block: block });
  }

  delta(d: NativeDelta): string {
    if (d.type === 'text') {
      const begin = this.open && this.open.call === null ? '' : this.startBlock({ type: 'text', text: '' }, null);
      return begin + this.ev('content_block_delta', { index: this.open!.index, delta: { type: 'text_delta', text: d.text } });
    }
    if (d.type === 'tool_call') {
      const out = this.startBlock({ type: 'tool_use', id: d.id, name: d.name, input: {} }, d.index);
      this.callBlocks.set(d.index, this.open!.index);
      return out;
    }
    const index = this.callBlocks.get(d.index);
    if (index === undefined) return '';
    return this.ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: d.delta } });
  }

  finish(r: StoredResponse): string {
    let out = this.blocks === 0 ? this.startBlock({ type: 'text', text: '' }, null) : ''; // the same one empty text block the JSON answer has
    out += this.close();
    out += this.ev('message_delta', { delta: { stop_reason: messagesStopOf(r), stop_sequence: null }, usage: messagesUsage(r) });
    return out + this.ev('message_stop');
  }

  /** A hosted call's blocks (code execution): each whole, opened and closed at once. */
  hosted(e: HostedEvent): string {
    return hostedMessagesFrames(e, (block) => this.startBlock(block, null) + this.close());
  }

  error(e: StreamError): string {
    return this.ev('error', { error: { type: ERROR_TYPES[e.status] ?? (e.status >= 500 ? 'api_error' : e.type), message: e.message } });
  }
}
