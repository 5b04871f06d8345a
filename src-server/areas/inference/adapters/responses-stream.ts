import { callName, type HostedEvent, type NativeDelta } from '../native.js';
import { HostedResponsesFrames } from '../hosted/hosted-stream.js';
import { messageItemId } from '../hosted/hosted-view.js';
import type { StoredResponse } from '../store/responses-repo.js';
import { callItemId, responseObject } from './responses-view.js';
import { frame, type StreamError, type StreamWriter } from './stream-frames.js';

interface Call {
  outputIndex: number;
  itemId: string;
  callId: string;
  /** The function's name, and its namespace when it has one (as the Responses API writes a call). */
  name: { name: string; namespace?: string };
  args: string;
  done: boolean;
}

/**
 * The Responses API's stream: `response.created`, `response.in_progress`, output items
 * (message: `output_item.added`, `content_part.added`, `output_text.delta`/`.done`,
 * `content_part.done`, `output_item.done`; function calls: `output_item.added`,
 * `function_call_arguments.delta`/`.done`, `output_item.done`), then `response.completed`
 * or `response.incomplete` with the whole response; an error is an `error` event. Every
 * event carries `sequence_number`. Item ids are the ones GET /v1/responses/{id} shows.
 */
export class ResponsesStream implements StreamWriter {
  private seq = 0;
  private id = '';
  private outputs = 0;
  private text: { outputIndex: number; text: string; done: boolean } | null = null;
  private calls: Call[] = [];
  private tools: StoredResponse['native']['tools'];
  /** Hosted rounds so far: the next text is the message of this round (hosted/hosted-stream.ts). */
  private round = 0;
  private hostedFrames = new HostedResponsesFrames(
    () => this.id,
    (type, body) => this.ev(type, body),
    () => this.outputs++,
  );

  private ev(type: string, body: Record<string, unknown>): string {
    return frame(type, { type, ...body, sequence_number: this.seq++ });
  }

  start(r: StoredResponse): string {
    this.id = r.id;
    this.tools = r.native.tools;
    const response = responseObject(r);
    return this.ev('response.created', { response }) + this.ev('response.in_progress', { response });
  }

  private openText(): string {
    this.text = { outputIndex: this.outputs++, text: '', done: false };
    const at = { output_index: this.text.outputIndex };
    const itemId = messageItemId(this.id, this.round);
    return (
      this.ev('response.output_item.added', { ...at, item: { id: itemId, type: 'message', status: 'in_progress', role: 'assistant', content: [] } }) +
      this.ev('response.content_part.added', {
        item_id: itemId,
        ...at,
        content_index: 0,
        part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
      })
    );
  }

  private closeText(status: 'completed' | 'incomplete'): string {
    const t = this.text;
    if (!t || t.done) return '';
    t.done = true;
    const itemId = messageItemId(this.id, this.round);
    const at = { item_id: itemId, output_index: t.outputIndex, content_index: 0 };
    const part = { type: 'output_text', text: t.text, annotations: [], logprobs: [] };
    return (
      this.ev('response.output_text.done', { ...at, text: t.text, logprobs: [] }) +
      this.ev('response.content_part.done', { ...at, part }) +
      this.ev('response.output_item.done', {
        output_index: t.outputIndex,
        item: { id: itemId, type: 'message', status, role: 'assistant', content: [part] },
      })
    );
  }

  private closeCall(c: Call): string {
    if (c.done) return '';
    c.done = true;
    const args = c.args || '{}';
    return (
      this.ev('response.function_call_arguments.done', { item_id: c.itemId, output_index: c.outputIndex, name: c.name.name, arguments: args }) +
      this.ev('response.output_item.done', {
        output_index: c.outputIndex,
        item: { id: c.itemId, type: 'function_call', status: 'completed', call_id: c.callId, ...c.name, arguments: args },
      })
    );
  }

  delta(d: NativeDelta): string {
    if (d.type === 'text') {
      const open = this.text ? '' : this.openText();
      this.text!.text += d.text;
      return (
        open +
        this.ev('response.output_text.delta', {
          item_id: messageItemId(this.id, this.round),
          output_index: this.text!.outputIndex,
          content_index: 0,
          delta: d.text,
          logprobs: [],
        })
      );
    }
    if (d.type === 'tool_call') {
      const name = callName(d.name, this.tools);
      const c: Call = { outputIndex: this.outputs++, itemId: callItemId(this.id, d.index), callId: d.id, name, args: '', done: false };
      this.calls[d.index] = c;
      return (
        this.closeText('completed') +
        this.ev('response.output_item.added', {
          output_index: c.outputIndex,
          item: { id: c.itemId, type: 'function_call', status: 'in_progress', call_id: c.callId, ...c.name, arguments: '' },
        })
      );
    }
    const c = this.calls[d.index];
    if (!c) return '';
    c.args += d.delta;
    return this.ev('response.function_call_arguments.delta', { item_id: c.itemId, output_index: c.outputIndex, delta: d.delta });
  }

  finish(r: StoredResponse): string {
    const incomplete = r.status === 'incomplete';
    let out = '';
    if (!this.text && !this.calls.length) out += this.openText(); // an empty answer is still one message, as GET shows it
    out += this.closeText(incomplete ? 'incomplete' : 'completed');
    for (const c of this.calls) if (c) out += this.closeCall(c);
    return out + this.ev(incomplete ? 'response.incomplete' : 'response.completed', { response: responseObject(r) });
  }

  /** A hosted call: the text before it ends; text after it is the next round's message. */
  hosted(e: HostedEvent): string {
    const out = e.type === 'started' ? this.closeText('completed') : '';
    if (e.type === 'started') {
      this.text = null;
      this.round = e.step + 1;
    }
    return out + this.hostedFrames.frames(e);
  }

  error(e: StreamError): string {
    return this.ev('error', { code: e.code ?? e.type, message: e.message, param: e.param });
  }
}
