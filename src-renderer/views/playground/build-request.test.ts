import { describe, expect, it } from 'vitest';
import { buildRequest, outputText, type PlaygroundInput } from './build-request.js';

const base: PlaygroundInput = {
  style: 'responses',
  model: 'local/tiny',
  prompt: 'hi',
  temperature: '0',
  topP: '',
  maxTokens: '16',
  schemaOn: false,
  schemaName: '',
  schemaText: '{}',
  background: false,
  webhookUrl: null,
  webhookToken: '',
};

describe('playground request builder', () => {
  it('does not build a request with an empty prompt (nothing is sent)', () => {
    for (const prompt of ['', '  \n '])
      for (const style of ['responses', 'chat', 'messages'] as const) expect(buildRequest({ ...base, style, prompt })).toHaveProperty('error');
  });

  it('builds each style with its own field names', () => {
    expect(buildRequest(base)).toEqual({ path: '/v1/responses', body: { model: 'local/tiny', temperature: 0, input: 'hi', max_output_tokens: 16 } });
    expect(buildRequest({ ...base, style: 'chat' })).toEqual({
      path: '/v1/chat/completions',
      body: { model: 'local/tiny', temperature: 0, messages: [{ role: 'user', content: 'hi' }], max_completion_tokens: 16 },
    });
    const m = buildRequest({ ...base, style: 'messages', maxTokens: '' });
    expect(m).toMatchObject({ path: '/v1/messages', body: { max_tokens: 256 } });
  });

  it('adds the schema, background and webhook metadata', () => {
    const r = buildRequest({
      ...base,
      schemaOn: true,
      schemaName: 'x',
      schemaText: '{"type":"object"}',
      background: true,
      webhookUrl: 'http://127.0.0.1:1/h',
      webhookToken: 't',
    });
    expect(r).toMatchObject({
      body: {
        text: { format: { type: 'json_schema', name: 'x', schema: { type: 'object' } } },
        background: true,
        metadata: { completion_webhook: 'http://127.0.0.1:1/h', webhook_token: 't' },
      },
    });
    expect(buildRequest({ ...base, schemaOn: true, schemaText: '{' })).toHaveProperty('error');
  });

  it('reads the text of each response shape', () => {
    expect(outputText('responses', { output: [{ content: [{ type: 'output_text', text: 'a' }] }] })).toBe('a');
    expect(outputText('chat', { choices: [{ message: { content: 'b' } }] })).toBe('b');
    expect(outputText('messages', { content: [{ type: 'text', text: 'c' }] })).toBe('c');
  });
});
