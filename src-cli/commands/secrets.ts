import { dispatch, parse, type Command, type Group } from '../args.js';
import { CliError } from '../errors.js';
import { ago, fields, json, table } from '../output.js';

/**
 * Reads a secret value from stdin, never from argv (argv shows in `ps` and shell history).
 * On a terminal it prompts without echo; a single trailing newline is dropped.
 */
export async function readSecretValue(name: string): Promise<string> {
  const stdin = process.stdin;
  if (stdin.isTTY) {
    process.stderr.write(`value for ${name} (input hidden, Enter to finish): `);
    stdin.setRawMode(true);
    try {
      return await new Promise<string>((resolve, reject) => {
        let v = '';
        const onData = (b: Buffer) => {
          for (const ch of b.toString('utf8')) {
            if (ch === '\r' || ch === '\n') return done(() => resolve(v));
            if (ch === '\u0003') return done(() => reject(new CliError('cancelled', 130)));
            if (ch === '\u007f') v = v.slice(0, -1);
            else v += ch;
          }
        };
        const done = (f: () => void) => {
          stdin.off('data', onData);
          stdin.pause();
          process.stderr.write('\n');
          f();
        };
        stdin.on('data', onData);
        stdin.resume();
      });
    } finally {
      stdin.setRawMode(false);
    }
  }
  const chunks: Buffer[] = [];
  for await (const c of stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

const group: Group = {
  list: {
    usage: 'box secrets list',
    summary: 'Secret names (values are never shown)',
    async run(ctx, argv) {
      parse(argv, this.usage, {});
      const res = await ctx.client.call('GET /v1/secrets');
      if (ctx.json) return json(res);
      table(
        ['name', 'created', 'updated'],
        res.data.map((s) => [s.name, ago(s.created_at), ago(s.updated_at)]),
      );
    },
  },
  set: {
    usage: 'box secrets set <NAME>   (the value is read from stdin)',
    summary: 'Create or replace a secret; the value comes from stdin, never from the command line',
    async run(ctx, argv) {
      const { positionals } = parse(argv, this.usage, {}, [1, 1]);
      const name = positionals[0]!;
      const value = await readSecretValue(name);
      if (!value) throw new CliError('empty secret value on stdin (pipe it in: printf %s "$TOKEN" | box secrets set NAME)', 2);
      const s = await ctx.client.call('PUT /v1/secrets/:name', { params: { name }, body: { value } });
      if (ctx.json) return json(s);
      process.stdout.write(`${s.name}  set\n`);
    },
  },
  get: {
    usage: 'box secrets get <NAME>',
    summary: "A secret's metadata (never its value)",
    async run(ctx, argv) {
      const { positionals } = parse(argv, this.usage, {}, [1, 1]);
      const s = await ctx.client.call('GET /v1/secrets/:name', { params: { name: positionals[0]! } });
      if (ctx.json) json(s);
      else fields(s);
    },
  },
  rm: {
    usage: 'box secrets rm <NAME>',
    summary: 'Delete a secret',
    async run(ctx, argv) {
      const { positionals } = parse(argv, this.usage, {}, [1, 1]);
      const s = await ctx.client.call('DELETE /v1/secrets/:name', { params: { name: positionals[0]! } });
      if (ctx.json) return json(s);
      process.stdout.write(`${positionals[0]}  deleted\n`);
    },
  },
  policies: {
    usage: 'box secrets policies <NAME>',
    summary: 'HTTP policies that use a secret',
    async run(ctx, argv) {
      const { positionals } = parse(argv, this.usage, {}, [1, 1]);
      const res = await ctx.client.call('GET /v1/secrets/:name/policies', { params: { name: positionals[0]! } });
      if (ctx.json) return json(res);
      table(
        ['policy id', 'name'],
        res.data.map((p) => [p.id, p.name]),
      );
    },
  },
};

export const secrets: Command = {
  usage: 'box secrets list|set|get|rm|policies',
  summary: 'Secrets for HTTP policies (values never enter a box)',
  group,
  run: (ctx, argv) => dispatch(ctx, group, 'box secrets', argv),
};
