import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { schemaInstance } from '../engines/echo/schema-instance.js';

/**
 * Loopback OpenAI- and Anthropic-compatible servers for tests and the bench. The reply
 * is "echo: <last user text>", one token per word; a token cap cuts it (finish_reason
 * `length` / stop_reason `max_tokens`). With a JSON schema in the request, the next
 * entry of `jsonReplies` is answered verbatim (or "{}"). With tools, it calls the first
 * one (arguments: a schema instance) unless the conversation ends in a tool result, which
 * it answers as "result: <text>". `stream: true` answers in the style's SSE format, one
 * word per event (`failMidStream` ends such a stream with the style's error event).
 */
export interface FakeUpstream {
  url: string;
  kind: 'openai' | 'anthropic';
  requests: { path: string; headers: http.IncomingHttpHeaders; body: any }[];
  jsonReplies: string[];
  /** When set, the next requests answer this status with an error body. */
  failWith: number | null;
  /** Delay before answering a generation request. */
  delayMs: number;
  /** Delay between two streamed events. */
  chunkDelayMs: number;
  /** A streamed answer sends an error event after its first words. */
  failMidStream: boolean;
  /** Streams the client went away from before their end. */
  abandoned: number;
  close(): Promise<void>;
}

const words = (s: string) => s.split(/\s+/).filter(Boolean);

function reply(lastUser: string, cap: number | undefined, jsonReplies: string[], json: boolean) {
  if (json) return { text: jsonReplies.shift() ?? '{}', cut: false, tokens: 5 };
  const all = words(`echo: ${lastUser}`);
  const cut = cap !== undefined && all.length > cap;
  const kept = cut ? all.slice(0, cap) : all;
  return { text: kept.join(' '), cut, tokens: kept.length };
}

export async function startFakeUpstream(kind: 'openai' | 'anthropic', opts: { apiKey?: string; record?: boolean } = {}): Promise<FakeUpstream> {
  const state: FakeUpstream = {
    url: '',
    kind,
    requests: [],
    jsonReplies: [],
    failWith: null,
    delayMs: 0,
    chunkDelayMs: 0,
    failMidStream: false,
    abandoned: 0,
    close: async () => {},
  };
  const record = opts.record ?? true;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => setTimeout(handle, req.method === 'POST' ? state.delayMs : 0));
    const handle = () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const body = raw ? JSON.parse(raw) : undefined;
      if (record) state.requests.push({ path: req.url ?? '', headers: req.headers, body });
      const send = (status: number, payload: unknown) => {
        const out = JSON.stringify(payload);
        res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) });
        res.end(out);
      };
      const key = kind === 'openai' ? req.headers.authorization?.replace(/^Bearer /, '') : req.headers['x-api-key'];
      if (opts.apiKey && key !== opts.apiKey) return send(401, { error: { type: 'authentication_error', message: 'bad upstream key' } });
      if (state.failWith) return send(state.failWith, { error: { type: 'api_error', message: `fake failure ${state.failWith}` } });
      const path = (req.url ?? '').split('?')[0];
      if (req.method === 'GET' && path === (kind === 'openai' ? '/v1/models' : '/v1/models')) {
        return send(
          200,
          kind === 'openai'
            ? { object: 'list', data: [{ id: 'fake-gpt', object: 'model', created: 1700000000, owned_by: 'fake' }] }
            : { data: [{ id: 'fake-claude', type: 'model', display_name: 'Fake Claude', created_at: '2024-01-01T00:00:00Z' }], has_more: false },
        );
      }
      if (kind === 'openai' && req.method === 'POST' && path === '/v1/embeddings') {
        // [characters, position, dimensions asked (or 3)] per input: the test reads back what reached it
        const inputs: unknown[] = typeof body.input === 'string' || typeof body.input[0] === 'number' ? [body.input] : body.input;
        const data = inputs.map((t, index) => ({ object: 'embedding', index, embedding: [String(t).length, index, body.dimensions ?? 3] }));
        return send(200, { object: 'list', data, model: body.model, usage: { prompt_tokens: 5 * inputs.length, total_tokens: 5 * inputs.length } });
      }
      if (kind === 'openai' && req.method === 'POST' && path === '/v1/chat/completions') {
        const msgs = body.messages as any[];
        const last = [...msgs].reverse().find((m: any) => m.role === 'user');
        const end = msgs[msgs.length - 1];
        const call = body.tools?.length && body.tool_choice !== 'none' && end.role !== 'tool' ? toolCall(body.tools[0].function, last?.content) : null;
        const r =
          end.role === 'tool'
            ? { text: `result: ${end.content}`, cut: false, tokens: 2 }
            : reply(last?.content ?? '', body.max_completion_tokens ?? body.max_tokens, state.jsonReplies, !!body.response_format?.json_schema);
        const finish = call ? 'tool_calls' : r.cut ? 'length' : 'stop';
        const usage = { prompt_tokens: 7, completion_tokens: r.tokens, total_tokens: 7 + r.tokens, prompt_tokens_details: { cached_tokens: 2 } };
        if (body.stream) return streamOpenAi(res, state, body.model, call ? '' : r.text, call, finish, usage);
        const tool_calls = call ? [{ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } }] : undefined;
        return send(200, {
          id: 'chatcmpl-fake',
          object: 'chat.completion',
          created: 1700000000,
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content: call ? null : r.text, tool_calls }, finish_reason: finish }],
          usage,
        });
      }
      if (kind === 'anthropic' && req.method === 'POST' && path === '/v1/messages') {
        const msgs = body.messages as any[];
        const end = msgs[msgs.length - 1];
        const results = Array.isArray(end.content) ? end.content.filter((b: any) => b.type === 'tool_result') : [];
        const lastText = (m: any) =>
          typeof m.content === 'string'
            ? m.content
            : m.content
                .filter((b: any) => b.type === 'text')
                .map((b: any) => b.text)
                .join('');
        const last = [...msgs].reverse().find((m: any) => m.role === 'user' && lastText(m));
        const call =
          body.tools?.length && body.tool_choice?.type !== 'none' && !results.length
            ? toolCall({ ...body.tools[0], parameters: body.tools[0].input_schema }, last && lastText(last))
            : null;
        const r = results.length
          ? {
              text: `result: ${results.map((b: any) => (typeof b.content === 'string' ? b.content : b.content.map((c: any) => c.text).join(''))).join('\n')}`,
              cut: false,
              tokens: 2,
            }
          : reply(last ? lastText(last) : '', body.max_tokens, state.jsonReplies, !!body.output_config?.format);
        const stop = call ? 'tool_use' : r.cut ? 'max_tokens' : 'end_turn';
        const usage = { input_tokens: 4, output_tokens: r.tokens, cache_read_input_tokens: 3, cache_creation_input_tokens: 1 };
        if (body.stream) return streamAnthropic(res, state, body.model, call ? '' : r.text, call, stop, usage);
        const content = call ? [{ type: 'tool_use', id: call.id, name: call.name, input: JSON.parse(call.arguments) }] : [{ type: 'text', text: r.text }];
        return send(200, {
          id: 'msg_fake',
          type: 'message',
          role: 'assistant',
          model: body.model,
          content,
          stop_reason: stop,
          stop_sequence: null,
          usage,
        });
      }
      send(404, { error: { type: 'not_found_error', message: `no route ${req.method} ${path}` } });
    };
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  state.url = kind === 'openai' ? `http://127.0.0.1:${port}/v1` : `http://127.0.0.1:${port}`;
  state.close = () =>
    new Promise((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return state;
}

interface Call {
  id: string;
  name: string;
  arguments: string;
}
let calls = 0;
function toolCall(tool: { name: string; parameters?: Record<string, unknown> }, seed: unknown): Call {
  const args = schemaInstance(tool.parameters ?? { type: 'object' }, typeof seed === 'string' ? seed : 'x') ?? {};
  return { id: `call_fake${++calls}`, name: tool.name, arguments: JSON.stringify(args) };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Writes SSE frames one by one (chunkDelayMs apart); counts a client that left before the end. */
async function sse(res: http.ServerResponse, state: FakeUpstream, frames: string[], failFrame: string) {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  let gone = false;
  res.on('close', () => {
    if (!res.writableFinished) gone = true;
  });
  for (let i = 0; i < frames.length; i++) {
    if (gone) {
      state.abandoned++;
      return;
    }
    if (state.failMidStream && i === 3) {
      res.end(failFrame);
      return;
    }
    res.write(frames[i]);
    if (state.chunkDelayMs) await sleep(state.chunkDelayMs);
  }
  res.end();
}

const pieces = (text: string) => text.match(/\S+\s*/g) ?? [];

function streamOpenAi(res: http.ServerResponse, state: FakeUpstream, model: string, text: string, call: Call | null, finish: string, usage: object) {
  const head = { id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 1700000000, model };
  const chunk = (delta: object, finish_reason: string | null = null) =>
    `data: ${JSON.stringify({ ...head, choices: [{ index: 0, delta, finish_reason }] })}\n\n`;
  const frames = [chunk({ role: 'assistant', content: '' }), ...pieces(text).map((p) => chunk({ content: p }))];
  if (call) {
    frames.push(chunk({ tool_calls: [{ index: 0, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
    for (const p of [call.arguments.slice(0, 5), call.arguments.slice(5)]) frames.push(chunk({ tool_calls: [{ index: 0, function: { arguments: p } }] }));
  }
  frames.push(chunk({}, finish), `data: ${JSON.stringify({ ...head, choices: [], usage })}\n\n`, 'data: [DONE]\n\n');
  return sse(res, state, frames, `data: ${JSON.stringify({ error: { message: 'fake failure mid-stream', type: 'server_error' } })}\n\n`);
}

function streamAnthropic(res: http.ServerResponse, state: FakeUpstream, model: string, text: string, call: Call | null, stop: string, usage: any) {
  const ev = (type: string, body: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...body })}\n\n`;
  const frames = [
    ev('message_start', {
      message: { id: 'msg_fake', type: 'message', role: 'assistant', model, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } },
    }),
    ev('ping', {}),
  ];
  if (text) {
    frames.push(ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }));
    for (const p of pieces(text)) frames.push(ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: p } }));
    frames.push(ev('content_block_stop', { index: 0 }));
  }
  if (call) {
    const index = text ? 1 : 0;
    frames.push(ev('content_block_start', { index, content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} } }));
    for (const p of [call.arguments.slice(0, 5), call.arguments.slice(5)])
      frames.push(ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: p } }));
    frames.push(ev('content_block_stop', { index }));
  }
  frames.push(
    ev('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } }),
    ev('message_stop', {}),
  );
  return sse(res, state, frames, ev('error', { error: { type: 'overloaded_error', message: 'fake failure mid-stream' } }));
}
