import fs from 'node:fs';
import { dispatch, parse, type Command, type Group } from '../args.js';
import { CliError } from '../errors.js';
import { ago, fields, json, table } from '../output.js';
import { listAll, resolveBoxId, resolvePolicyId } from '../resolve.js';
import type { HttpPolicy } from '@box/contract/policies';

/** A policy document from a JSON file, or stdin for "-". */
function readDocument(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = fs.readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (e) {
    throw new CliError(`${file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`, 2);
  }
  try {
    const doc = JSON.parse(text) as unknown;
    if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new Error('the document must be a JSON object of host patterns');
    return doc as Record<string, unknown>;
  } catch (e) {
    throw new CliError(`${file}: ${(e as Error).message}`, 2);
  }
}

function show(p: HttpPolicy) {
  fields({ id: p.id, name: p.name, created_at: p.created_at, updated_at: p.updated_at });
  process.stdout.write(`document:\n${JSON.stringify(p.document, null, 2)}\n`);
}

const print = (ctx: { json: boolean }, p: HttpPolicy) => (ctx.json ? json(p) : show(p));

const group: Group = {
  list: {
    usage: 'box policies list',
    summary: 'HTTP (egress) policies of the organization',
    async run(ctx, argv) {
      parse(argv, this.usage, {});
      const all = await listAll(ctx.client, 'GET /v1/http-policies');
      if (ctx.json) return json(all);
      table(
        ['policy id', 'name', 'hosts', 'updated'],
        all.map((p) => [p.id, p.name, Object.keys(p.document).join(' '), ago(p.updated_at)]),
      );
    },
  },
  presets: {
    usage: 'box policies presets',
    summary: 'Ready-made policies to create from (box policies create --preset <id>)',
    async run(ctx, argv) {
      parse(argv, this.usage, {});
      const res = await ctx.client.call('GET /v1/http-policies/presets');
      if (ctx.json) return json(res.data);
      table(
        ['preset', 'name', 'hosts', 'what it does'],
        res.data.map((p) => [p.id, p.name, String(Object.keys(p.document).length), p.description]),
      );
    },
  },
  create: {
    usage: 'box policies create [name] --file <doc.json|-> | --preset <id>',
    summary: 'Create a policy from a JSON document (host pattern → {rules: [...]}) or a preset',
    async run(ctx, argv) {
      const { values, positionals } = parse(argv, this.usage, { file: { type: 'string', short: 'f' }, preset: { type: 'string', short: 'p' } }, [0, 1]);
      if (!values.file === !values.preset) throw new CliError(`give exactly one of --file or --preset (see "box policies presets")\nusage: ${this.usage}`, 2);
      if (values.file && !positionals[0]) throw new CliError(`a name is required with --file\nusage: ${this.usage}`, 2);
      const body = values.preset ? { preset: values.preset, name: positionals[0] } : { name: positionals[0], document: readDocument(values.file!) };
      print(ctx, await ctx.client.call('POST /v1/http-policies', { body }));
    },
  },
  get: {
    usage: 'box policies get <policy>',
    summary: 'Show a policy (by id or name)',
    async run(ctx, argv) {
      const { positionals } = parse(argv, this.usage, {}, [1, 1]);
      print(ctx, await ctx.client.call('GET /v1/http-policies/:id', { params: { id: await resolvePolicyId(ctx.client, positionals[0]!) } }));
    },
  },
  update: {
    usage: 'box policies update <policy> [--name n] [--file doc.json|-]',
    summary: 'Rename a policy or replace its document',
    async run(ctx, argv) {
      const { values, positionals } = parse(argv, this.usage, { name: { type: 'string' }, file: { type: 'string', short: 'f' } }, [1, 1]);
      if (!values.name && !values.file) throw new CliError(`nothing to change\nusage: ${this.usage}`, 2);
      const id = await resolvePolicyId(ctx.client, positionals[0]!);
      print(
        ctx,
        await ctx.client.call('PATCH /v1/http-policies/:id', {
          params: { id },
          body: { name: values.name, document: values.file ? readDocument(values.file) : undefined },
        }),
      );
    },
  },
  rm: {
    usage: 'box policies rm <policy>',
    summary: 'Delete a policy (refused while attached to a box)',
    async run(ctx, argv) {
      const { positionals } = parse(argv, this.usage, {}, [1, 1]);
      const id = await resolvePolicyId(ctx.client, positionals[0]!);
      const res = await ctx.client.call('DELETE /v1/http-policies/:id', { params: { id } });
      if (ctx.json) return json(res ?? { id, deleted: true });
      process.stdout.write(`${id}  deleted\n`);
    },
  },
  attach: {
    usage: 'box policies attach <box> <policy> [--reason text]',
    summary: 'Attach a policy to a box',
    async run(ctx, argv) {
      const { values, positionals } = parse(argv, this.usage, { reason: { type: 'string' } }, [2, 2]);
      const boxId = await resolveBoxId(ctx.client, positionals[0]!);
      const policy_id = await resolvePolicyId(ctx.client, positionals[1]!);
      const res = await ctx.client.call('PUT /v1/boxes/:box_id/http-policy', {
        params: { box_id: boxId },
        body: { policy_id },
        headers: values.reason ? { 'x-box-override-reason': values.reason } : {},
      });
      if (ctx.json) return json(res);
      process.stdout.write(`${boxId}  ${policy_id}  attached\n`);
    },
  },
  detach: {
    usage: 'box policies detach <box> [--reason text]',
    summary: "Detach a box's policy (the organization default applies again)",
    async run(ctx, argv) {
      const { values, positionals } = parse(argv, this.usage, { reason: { type: 'string' } }, [1, 1]);
      const boxId = await resolveBoxId(ctx.client, positionals[0]!);
      const res = await ctx.client.call('DELETE /v1/boxes/:box_id/http-policy', {
        params: { box_id: boxId },
        headers: values.reason ? { 'x-box-override-reason': values.reason } : {},
      });
      if (ctx.json) return json(res ?? { box_id: boxId, detached: true });
      process.stdout.write(`${boxId}  detached\n`);
    },
  },
  show: {
    usage: 'box policies show <box>',
    summary: 'The policy attached to a box (404 when none)',
    async run(ctx, argv) {
      const { positionals } = parse(argv, this.usage, {}, [1, 1]);
      print(ctx, await ctx.client.call('GET /v1/boxes/:box_id/http-policy', { params: { box_id: await resolveBoxId(ctx.client, positionals[0]!) } }));
    },
  },
  log: {
    usage: 'box policies log <box> [--limit n]',
    summary: 'What the box tried to reach, and the verdict',
    async run(ctx, argv) {
      const { values, positionals } = parse(argv, this.usage, { limit: { type: 'string', default: '50' } }, [1, 1]);
      const boxId = await resolveBoxId(ctx.client, positionals[0]!);
      const res = await ctx.client.call('GET /v1/boxes/:box_id/egress-log', { params: { box_id: boxId }, query: { limit: values.limit } });
      if (ctx.json) return json(res);
      const rows = res.data as unknown as Record<string, unknown>[];
      const cols = rows[0] ? Object.keys(rows[0]).filter((k) => typeof rows[0]![k] !== 'object') : ['at', 'host', 'verdict'];
      table(
        cols,
        rows.map((r) => cols.map((c) => r[c] as string)),
      );
    },
  },
};

export const policies: Command = {
  usage: 'box policies list|presets|create|get|update|rm|attach|detach|show|log',
  summary: 'HTTP (egress) policies',
  group,
  run: (ctx, argv) => dispatch(ctx, group, 'box policies', argv),
};
