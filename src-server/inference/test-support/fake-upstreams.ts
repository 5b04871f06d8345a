import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Loopback OpenAI- and Anthropic-compatible servers for tests and the bench. The reply
 * is "echo: <last user text>", one token per word; a token cap cuts it (finish_reason
 * `length` / stop_reason `max_tokens`). With a JSON schema in the request, the next
 * entry of `jsonReplies` is answered verbatim (or "{}").
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
  const state: FakeUpstream = { url: '', kind, requests: [], jsonReplies: [], failWith: null, delayMs: 0, close: async () => {} };
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
      if (kind === 'openai' && req.method === 'POST' && path === '/v1/chat/completions') {
        const last = [...body.messages].reverse().find((m: any) => m.role === 'user');
        const r = reply(last?.content ?? '', body.max_completion_tokens ?? body.max_tokens, state.jsonReplies, !!body.response_format?.json_schema);
        return send(200, {
          id: 'chatcmpl-fake',
          object: 'chat.completion',
          created: 1700000000,
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content: r.text }, finish_reason: r.cut ? 'length' : 'stop' }],
          usage: { prompt_tokens: 7, completion_tokens: r.tokens, total_tokens: 7 + r.tokens, prompt_tokens_details: { cached_tokens: 2 } },
        });
      }
      if (kind === 'anthropic' && req.method === 'POST' && path === '/v1/messages') {
        const last = [...body.messages].reverse().find((m: any) => m.role === 'user');
        const r = reply(last?.content ?? '', body.max_tokens, state.jsonReplies, !!body.output_config?.format);
        return send(200, {
          id: 'msg_fake',
          type: 'message',
          role: 'assistant',
          model: body.model,
          content: [{ type: 'text', text: r.text }],
          stop_reason: r.cut ? 'max_tokens' : 'end_turn',
          stop_sequence: null,
          usage: { input_tokens: 4, output_tokens: r.tokens, cache_read_input_tokens: 3, cache_creation_input_tokens: 1 },
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
