import { createParser } from 'eventsource-parser';
import type { Style } from './build-request.js';

/**
 * Reads a streamed answer (server-sent events in the style's format), calling `onText`
 * with text as it arrives, and resolves the answer in the style's non-streamed shape
 * (assembled from the events), so the rest of the playground reads both the same way.
 */
/** One server-sent event as it arrived: its `event:` name (if any), its data's `type`, the data, and ms since the stream began. */
export interface StreamEvent {
  event: string | null;
  type: string;
  data: unknown;
  ms: number;
}

export async function readStream(
  style: Style,
  body: ReadableStream<Uint8Array>,
  onText: (t: string) => void,
  onEvent?: (e: StreamEvent) => void,
): Promise<Record<string, unknown>> {
  const t0 = performance.now();
  let final: Record<string, any> = {};
  let error: string | null = null;
  const chat = {
    id: '',
    content: '',
    calls: [] as { id: string; type: 'function'; function: { name: string; arguments: string } }[],
    finish: null as string | null,
    usage: null,
  };
  const blocks: Record<string, any>[] = [];
  const parser = createParser({
    onEvent: (ev) => {
      const ms = Math.round(performance.now() - t0);
      if (ev.data === '[DONE]') return void onEvent?.({ event: ev.event ?? null, type: '[DONE]', data: '[DONE]', ms });
      const d = JSON.parse(ev.data);
      onEvent?.({ event: ev.event ?? null, type: typeof d.type === 'string' ? d.type : (d.object ?? ev.event ?? 'message'), data: d, ms });
      if (ev.event === 'error' || d.error) error = d.error?.message ?? d.message ?? 'the stream failed';
      else if (style === 'responses') {
        if (d.type === 'response.output_text.delta') onText(d.delta);
        if (d.type === 'response.completed' || d.type === 'response.incomplete') final = d.response;
      } else if (style === 'chat') {
        chat.id ||= d.id;
        const delta = d.choices?.[0]?.delta;
        if (delta?.content) {
          chat.content += delta.content;
          onText(delta.content);
        }
        for (const t of delta?.tool_calls ?? []) {
          if (t.id) chat.calls[t.index] = { id: t.id, type: 'function', function: { name: t.function.name, arguments: '' } };
          if (t.function?.arguments) chat.calls[t.index]!.function.arguments += t.function.arguments;
        }
        if (d.choices?.[0]?.finish_reason) chat.finish = d.choices[0].finish_reason;
        if (d.usage) chat.usage = d.usage;
      } else {
        if (d.type === 'message_start') final = { ...d.message };
        if (d.type === 'content_block_start') blocks[d.index] = { ...d.content_block, partial: '' };
        if (d.type === 'content_block_delta' && d.delta.type === 'text_delta') {
          blocks[d.index]!.text += d.delta.text;
          onText(d.delta.text);
        }
        if (d.type === 'content_block_delta' && d.delta.type === 'input_json_delta') blocks[d.index]!.partial += d.delta.partial_json;
        if (d.type === 'message_delta') final = { ...final, stop_reason: d.delta.stop_reason, usage: d.usage };
      }
    },
  });
  const reader = body.getReader();
  const dec = new TextDecoder();
  for (let r = await reader.read(); !r.done; r = await reader.read()) parser.feed(dec.decode(r.value, { stream: true }));
  if (error) throw new Error(error);
  if (style === 'chat') {
    const message = { role: 'assistant', content: chat.content || (chat.calls.length ? null : ''), ...(chat.calls.length ? { tool_calls: chat.calls } : {}) };
    return { id: chat.id, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: chat.finish }], usage: chat.usage };
  }
  if (style === 'messages') {
    const content = blocks.map(({ partial, ...b }) => (b.type === 'tool_use' ? { ...b, input: partial ? JSON.parse(partial) : {} } : b));
    return { ...final, content };
  }
  return final;
}
