import { parse, type Command } from '../args.js';
import { fields, json } from '../output.js';

export const whoami: Command = {
  usage: 'box whoami [--json]',
  summary: 'Show the organization and key the CLI speaks as',
  async run(ctx, argv) {
    parse(argv, this.usage, {});
    const me = await ctx.client.get<Record<string, unknown>>('/v1/whoami');
    if (ctx.json) json(me);
    else fields({ url: ctx.config.url, ...me });
  },
};

export const openapi: Command = {
  usage: 'box openapi',
  summary: 'Print the OpenAPI document of the service',
  async run(ctx, argv) {
    parse(argv, this.usage, {});
    json(await ctx.client.get('/v1/openapi.json'));
  },
};
