import { dispatch, parse, type Command, type Group } from '../args.js';
import { CliError } from '../errors.js';
import { ago, json, table } from '../output.js';

const group: Group = {
  list: {
    usage: 'box keys list',
    summary: 'API keys of the organization',
    async run(ctx, argv) {
      parse(argv, this.usage, {});
      const res = await ctx.client.call('GET /v1/api-keys');
      if (ctx.json) return json(res);
      table(
        ['key id', 'name', 'scope', 'prefix', 'created', 'last used'],
        res.data.map((k) => [k.id, k.name, k.scope, k.prefix as string, ago(k.created_at), ago(k.last_used_at)]),
      );
    },
  },
  create: {
    usage: 'box keys create <name> [--scope organization|user]',
    summary: 'Create an API key; its secret is printed once, on stdout',
    async run(ctx, argv) {
      const { values, positionals } = parse(argv, this.usage, { scope: { type: 'string', default: 'organization' } }, [1, 1]);
      if (!['organization', 'user'].includes(values.scope!)) throw new CliError('--scope must be organization or user', 2);
      const k = await ctx.client.call('POST /v1/api-keys', { body: { name: positionals[0]!, scope: values.scope as 'organization' | 'user' } });
      if (ctx.json) return json(k);
      process.stderr.write(`created ${k.id} (${k.scope}); the secret is shown only now:\n`);
      process.stdout.write(`${k.secret}\n`);
    },
  },
  rm: {
    usage: 'box keys rm <key_id>',
    summary: 'Revoke an API key',
    async run(ctx, argv) {
      const { positionals } = parse(argv, this.usage, {}, [1, 1]);
      const k = await ctx.client.call('DELETE /v1/api-keys/:key_id', { params: { key_id: positionals[0]! } });
      if (ctx.json) return json(k);
      process.stdout.write(`${k.id}  revoked\n`);
    },
  },
};

export const keys: Command = { usage: 'box keys list|create|rm', summary: 'API keys', group, run: (ctx, argv) => dispatch(ctx, group, 'box keys', argv) };
