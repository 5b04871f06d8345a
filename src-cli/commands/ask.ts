import { parse, type Ctx } from '../args.js';
import { CliError } from '../errors.js';
import { json } from '../output.js';
import { readEventStream } from '../sse.js';

const STYLES = ['responses', 'chat', 'messages'] as const;
type Style = (typeof STYLES)[number];

function request(style: Style, model: string, prompt: string, system: string | undefined, max: number | undefined, stream: boolean) {
  if (style === 'responses')
    return [
      '/v1/responses',
      { model, input: prompt, stream, ...(system ? { instructions: system } : {}), ...(max ? { max_output_tokens: max } : {}) },
    ] as const;
  const messages = [{ role: 'user', content: prompt }];
  if (style === 'chat') {
    return [
      '/v1/chat/completions',
      { model, stream, messages: system ? [{ role: 'system', content: system }, ...messages] : messages, ...(max ? { max_completion_tokens: max } : {}) },
    ] as const;
  }
  return ['/v1/messages', { model, stream, messages, max_tokens: max ?? 1024, ...(system ? { system } : {}) }] as const;
}

/** The text an event of the style carries, or throws its error event. */
function deltaOf(style: Style, event: string, data: any): string {
  if (event === 'error' || data?.error) throw new CliError(`the stream failed: ${data?.error?.message ?? data?.message ?? 'unknown error'}`, 1);
  if (style === 'responses') return event === 'response.output_text.delta' ? data.delta : '';
  if (style === 'chat') return data?.choices?.[0]?.delta?.content ?? '';
  return event === 'content_block_delta' && data.delta?.type === 'text_delta' ? data.delta.text : '';
}

/** `box models ask`: one prompt, the answer printed as it streams (or at once with --no-stream). */
export const ask = {
  usage: 'box models ask <MODEL> <PROMPT...> [--style responses|chat|messages] [--system TEXT] [--max-tokens N] [--no-stream]',
  summary: 'Ask a model once; the answer prints as it streams (Responses by default)',
  async run(ctx: Ctx, argv: string[]) {
    const { values, positionals } = parse(
      argv,
      this.usage,
      { style: { type: 'string' }, system: { type: 'string' }, 'max-tokens': { type: 'string' }, 'no-stream': { type: 'boolean' } },
      [2, Infinity],
    );
    const style = (values.style ?? 'responses') as Style;
    if (!STYLES.includes(style)) throw new CliError(`--style must be one of ${STYLES.join(', ')}`, 2);
    const max = values['max-tokens'] === undefined ? undefined : Number(values['max-tokens']);
    if (max !== undefined && !(Number.isInteger(max) && max > 0)) throw new CliError('--max-tokens must be a positive integer', 2);
    const stream = !values['no-stream'] && !ctx.json;
    const [path, body] = request(style, positionals[0]!, positionals.slice(1).join(' '), values.system, max, stream);
    const res = await ctx.client.raw('POST', path, { json: body, inference: true });
    if (!stream) {
      const answer = (await res.json()) as any;
      if (ctx.json) return json(answer);
      const text =
        style === 'responses'
          ? answer.output.flatMap((o: any) => (o.type === 'message' ? o.content.map((c: any) => c.text) : [])).join('')
          : style === 'chat'
            ? (answer.choices[0].message.content ?? '')
            : answer.content.map((b: any) => b.text ?? '').join('');
      process.stdout.write(`${text}\n`);
      return;
    }
    await readEventStream(res.body!, (event, data) => {
      const t = deltaOf(style, event, data);
      if (t) process.stdout.write(t);
    });
    process.stdout.write('\n');
  },
};
