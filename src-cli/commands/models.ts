import { dispatch, parse, type Command, type Group } from '../args.js';
import type { Answer } from '@box/contract/call';
import { CliError } from '../errors.js';
import { bar, bytes, json, progressLine, table } from '../output.js';
import { ask } from './ask.js';

type Pull = Answer<'GET /v1/local-models/pulls/:pull_id'>;

const ENDED = new Set<string>(['completed', 'failed', 'cancelled']);
const percent = (p: Pull) => (p.bytes_total ? (100 * p.bytes_done) / p.bytes_total : 0);

const group: Group = {
  list: {
    usage: 'box models list',
    summary: 'Models of the inference API (box/echo is the built-in test model, not a language model)',
    async run(ctx, argv) {
      parse(argv, this.usage, {});
      const list = await ctx.client.call('GET /v1/models');
      if (ctx.json) return json(list);
      table(
        ['id', 'owned by', 'description'],
        list.data.map((m) => [m.id, m.owned_by, m.display_name ?? '']),
      );
      if (list.data.every((m) => m.id === 'box/echo')) {
        process.stderr.write(
          '\nOnly the test model is available. Get a real one: `box models catalog` then `box models pull <id>`,\nstart Ollama / LM Studio / llama.cpp / vLLM locally (found automatically), or add an engine in Settings.\n',
        );
      }
    },
  },
  catalog: {
    usage: 'box models catalog',
    summary: 'Curated small GGUF models the embedded engine can run',
    async run(ctx, argv) {
      parse(argv, this.usage, {});
      const cat = await ctx.client.call('GET /v1/local-models/catalog');
      if (ctx.json) return json(cat);
      table(
        ['id', 'params', 'quant', 'size', 'licence', 'checksum'],
        cat.data.map((c) => [c.id, c.parameters, c.quantization, bytes(c.size_bytes), c.licence, c.sha256 ? 'sha256' : 'unpinned']),
      );
    },
  },
  pull: {
    usage: 'box models pull <CATALOG_ID|URL> [--name NAME] [--sha256 HEX] [--detach]',
    summary: 'Download a model with progress; resumes after a service restart; checksum verified',
    async run(ctx, argv) {
      const { values, positionals } = parse(argv, this.usage, { name: { type: 'string' }, sha256: { type: 'string' }, detach: { type: 'boolean' } }, [1, 1]);
      const what = positionals[0]!;
      const body = /^https?:\/\//.test(what) ? { url: what } : { catalog_id: what };
      let p = await ctx.client.call('POST /v1/local-models/pull', {
        body: { ...body, ...(values.name ? { name: values.name } : {}), ...(values.sha256 ? { sha256: values.sha256 } : {}) },
      });
      if (values.detach) return ctx.json ? json(p) : void process.stdout.write(`${p.id}  ${p.state}  (box models pulls ${p.id})\n`);
      const line = progressLine();
      while (!ENDED.has(p.state)) {
        line.update(`${p.name}  ${bar(percent(p))}  ${bytes(p.bytes_done)} / ${bytes(p.bytes_total)}  ${p.state}`);
        await new Promise((r) => setTimeout(r, 500));
        p = await ctx.client.call('GET /v1/local-models/pulls/:pull_id', { params: { pull_id: p.id } });
      }
      line.done(`${p.name}  ${bar(p.state === 'completed' ? 100 : percent(p))}  ${p.state}`);
      if (ctx.json) json(p);
      else if (p.state === 'completed') process.stdout.write(`${p.model_id}  ready  sha256 ${p.sha256}\n`);
      if (p.state !== 'completed') throw new CliError(`pull ${p.id} ${p.state}${p.error ? `: ${p.error}` : ''}`, 1);
    },
  },
  pulls: {
    usage: 'box models pulls [PULL_ID]',
    summary: 'Recent model pulls and their progress',
    async run(ctx, argv) {
      const { positionals } = parse(argv, this.usage, {}, [0, 1]);
      const list = positionals[0]
        ? [await ctx.client.call('GET /v1/local-models/pulls/:pull_id', { params: { pull_id: positionals[0] } })]
        : (await ctx.client.call('GET /v1/local-models/pulls')).data;
      if (ctx.json) return json(positionals[0] ? list[0] : { data: list });
      table(
        ['id', 'name', 'state', 'progress', 'error'],
        list.map((p) => [p.id, p.name, p.state, `${bytes(p.bytes_done)} / ${bytes(p.bytes_total)}`, p.error ?? '']),
      );
    },
  },
  cancel: {
    usage: 'box models cancel <PULL_ID>',
    summary: 'Cancel a model pull (its partial file is deleted)',
    async run(ctx, argv) {
      const { positionals } = parse(argv, this.usage, {}, [1, 1]);
      const p = await ctx.client.call('POST /v1/local-models/pulls/:pull_id/cancel', { params: { pull_id: positionals[0]! } });
      if (ctx.json) return json(p);
      process.stdout.write(`${p.id}  ${p.state}\n`);
    },
  },
};

group.ask = ask;

export const models: Command = {
  usage: 'box models list|catalog|pull|pulls|cancel|ask',
  summary: 'Models: list them, browse the catalog, pull one with progress',
  run: (ctx, argv) => dispatch(ctx, group, 'box models', argv.length ? argv : ['list']),
};
