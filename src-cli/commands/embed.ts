import { intArg, parse, type Ctx } from '../args.js';
import { CliError } from '../errors.js';
import { json } from '../output.js';

/** `box embed`: the embedding of a text (POST /v1/embeddings), printed as a JSON array of numbers. */
export const embed = {
  usage: 'box embed <TEXT...> --model MODEL [--dimensions N]',
  summary: 'Embed a text with a model that embeds (box/echo: deterministic test vectors); prints the vector as JSON',
  async run(ctx: Ctx, argv: string[]) {
    const { values, positionals } = parse(argv, this.usage, { model: { type: 'string' }, dimensions: { type: 'string' } }, [1, Infinity]);
    if (!values.model) throw new CliError(`--model is required (GET /v1/models lists the models with capability "embedding")\nusage: ${this.usage}`, 2);
    const dimensions = intArg(values.dimensions, 'dimensions', 1);
    const r = await ctx.client.call('POST /v1/embeddings', {
      body: { model: values.model, input: positionals.join(' '), encoding_format: 'float', ...(dimensions ? { dimensions } : {}) },
    });
    if (ctx.json) return json(r);
    process.stdout.write(`${JSON.stringify(r.data[0]!.embedding)}\n`);
  },
};
