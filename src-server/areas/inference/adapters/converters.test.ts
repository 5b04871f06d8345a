import { describe, expect, it } from 'vitest';
import { fromAnthropicMessage, toAnthropicMessages } from '../engines/upstream/anthropic-upstream.js';
import { fromOpenAiChat, toOpenAiChat } from '../engines/upstream/openai-upstream.js';
import type { NativeRequest } from '../native.js';
import { chatToNative } from './chat.js';
import { checkMetadata } from './common.js';
import { messagesToNative } from './messages.js';
import { responsesToNative } from './responses.js';

const native: NativeRequest = {
  model: 'x/m',
  messages: [
    { role: 'system', text: 'sys' },
    { role: 'user', text: 'a' },
    { role: 'user', text: 'b' },
    { role: 'assistant', text: 'c' },
  ],
  params: { temperature: 1.5, topP: 0.9 },
  format: { type: 'json_schema', name: 'n', schema: { type: 'object' }, strict: true },
  maxOutputTokens: 10,
};

describe('pure converters', () => {
  it('the three wire styles meet in one native request', () => {
    const viaResponses = responsesToNative({
      model: 'x/m',
      input: [
        { role: 'developer', content: 'sys' },
        { role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
      ],
      max_output_tokens: 5,
    });
    const viaChat = chatToNative({
      model: 'x/m',
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      ],
      max_completion_tokens: 5,
    });
    expect(viaResponses.native.messages).toEqual(viaChat.native.messages);
    expect(viaResponses.native.maxOutputTokens).toBe(viaChat.native.maxOutputTokens);
    const viaMessages = messagesToNative({ model: 'x/m', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] });
    expect(viaMessages.native.messages).toEqual([{ role: 'user', text: 'hi' }]);
  });

  it('metadata: completion_window checked, invalid webhook URL means no webhook', () => {
    expect(checkMetadata({ completion_webhook: 'https://h/x', webhook_token: 't' }).webhook).toEqual({ url: 'https://h/x', token: 't' });
    expect(checkMetadata({ completion_webhook: 'not a url' }).webhook).toBeNull();
    expect(checkMetadata({ completion_webhook: 'javascript:alert(1)' }).webhook).toBeNull();
    expect(() => checkMetadata({ completion_window: 'soon' })).toThrow(/completion_window/);
  });

  it('native → Anthropic: system lifted, same-role turns merged, temperature capped at 1', () => {
    expect(toAnthropicMessages('m', native)).toEqual({
      model: 'm',
      system: 'sys',
      messages: [
        { role: 'user', content: 'a\n\nb' },
        { role: 'assistant', content: 'c' },
      ],
      max_tokens: 10,
      temperature: 1,
      top_p: 0.9,
      output_config: { format: { type: 'json_schema', schema: { type: 'object' } } },
    });
    expect(
      fromAnthropicMessage({
        content: [
          { type: 'text', text: 'x' },
          { type: 'text', text: 'y' },
        ],
        stop_reason: 'max_tokens',
        usage: { input_tokens: 1, output_tokens: 2, cache_read_input_tokens: 3 },
      }),
    ).toEqual({
      text: 'xy',
      stop: 'max_tokens',
      usage: { inputTokens: 4, outputTokens: 2, cachedInputTokens: 3, cacheWriteInputTokens: 0, reasoningTokens: 0 },
    });
  });

  it('native → OpenAI chat and back', () => {
    expect(toOpenAiChat('m', native)).toMatchObject({
      model: 'm',
      max_completion_tokens: 10,
      response_format: { type: 'json_schema', json_schema: { name: 'n', schema: { type: 'object' }, strict: true } },
    });
    expect(
      fromOpenAiChat({ choices: [{ message: { content: 'hi' }, finish_reason: 'length' }], usage: { prompt_tokens: 3, completion_tokens: 1 } }),
    ).toMatchObject({ text: 'hi', stop: 'max_tokens', usage: { inputTokens: 3, outputTokens: 1 } });
  });

  it('Messages beyond the spec, as Claude Code sends them: a system message inside messages, thinking adaptive (enabled is still refused)', () => {
    const p = messagesToNative({
      model: 'x/m',
      max_tokens: 5,
      thinking: { type: 'adaptive' },
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'system', content: [{ type: 'text', text: 'be brief' }] },
      ],
    } as never);
    expect(p.native.messages).toEqual([
      { role: 'user', text: 'hi' },
      { role: 'system', text: 'be brief' },
    ]);
    expect(() =>
      messagesToNative({
        model: 'x/m',
        max_tokens: 5,
        thinking: { type: 'enabled', budget_tokens: 1024 },
        messages: [{ role: 'user', content: 'hi' }],
      } as never),
    ).toThrow(/thinking is not supported/);
  });
});
