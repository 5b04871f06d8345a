import { dispatch, parse, type Command, type Group } from '../args.js';
import { CliError } from '../errors.js';
import { json, table } from '../output.js';

const group: Group = {
  list: {
    usage: 'box engines list',
    summary: 'Inference engines: embedded, upstreams (with their last error), discovered, built-in test',
    async run(ctx, argv) {
      parse(argv, this.usage, {});
      const res = await ctx.client.call('GET /v1/engines');
      if (ctx.json) return json(res);
      table(
        ['name', 'kind', 'base url', 'key', 'last error'],
        res.data.map((e) => [e.name, e.discovered ? `${e.kind} (found)` : e.kind, e.base_url, e.has_api_key ? 'yes' : '', e.last_error?.message]),
      );
    },
  },
  add: {
    usage: 'box engines add <name> <base_url> [--kind openai|anthropic] [--api-key KEY | --api-key-env VAR] [--no-verify]',
    summary: 'Add (or replace) an upstream; its model list is tested first and a failure says why (refused, 401, TLS, timeout, wrong API shape)',
    async run(ctx, argv) {
      const { values, positionals } = parse(
        argv,
        this.usage,
        {
          kind: { type: 'string', default: 'openai' },
          'api-key': { type: 'string' },
          'api-key-env': { type: 'string' },
          'no-verify': { type: 'boolean' },
        },
        [2, 2],
      );
      if (!['openai', 'anthropic'].includes(values.kind!)) throw new CliError('--kind must be openai or anthropic', 2);
      const envKey = values['api-key-env'];
      if (envKey && process.env[envKey] === undefined) throw new CliError(`--api-key-env ${envKey}: that variable is not set`, 2);
      const apiKey = values['api-key'] ?? (envKey ? process.env[envKey] : undefined);
      const body = {
        name: positionals[0]!,
        kind: values.kind as 'openai' | 'anthropic',
        base_url: positionals[1]!,
        ...(apiKey ? { api_key: apiKey } : {}),
        ...(values['no-verify'] ? { verify: false } : {}),
      };
      const e = await ctx.client.call('POST /v1/engines', { body });
      if (ctx.json) return json(e);
      process.stdout.write(`${e.name}  ${e.kind}  ${e.base_url}  ${values['no-verify'] ? 'saved untested' : 'answered its model list'}\n`);
    },
  },
  test: {
    usage: 'box engines test <name>',
    summary: 'Test a configured upstream now (its model list); exits 1 with the reason when it fails',
    async run(ctx, argv) {
      const { positionals } = parse(argv, this.usage, {}, [1, 1]);
      const t = await ctx.client.call('POST /v1/engines/:name/test', { params: { name: positionals[0]! } });
      if (ctx.json) json(t);
      else if (t.ok) process.stdout.write(`${t.name}: ok, ${t.models} model${t.models === 1 ? '' : 's'}\n`);
      if (!t.ok) throw new CliError(`${t.name}: ${t.error!.message} (${t.error!.code})`, 1);
    },
  },
  rm: {
    usage: 'box engines rm <name>',
    summary: 'Remove an upstream, or dismiss a discovered engine',
    async run(ctx, argv) {
      const { positionals } = parse(argv, this.usage, {}, [1, 1]);
      const e = await ctx.client.call('DELETE /v1/engines/:name', { params: { name: positionals[0]! } });
      if (ctx.json) return json(e);
      process.stdout.write(`${e.name}  removed\n`);
    },
  },
};

export const engines: Command = {
  usage: 'box engines list|add|test|rm',
  summary: 'Inference engines: add an upstream (tested first), test it, remove it',
  group,
  run: (ctx, argv) => dispatch(ctx, group, 'box engines', argv.length ? argv : ['list']),
};
