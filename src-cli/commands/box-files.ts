import { dispatch, parse, type Command, type Group } from '../args.js';
import { json, table } from '../output.js';
import { resolveBoxId } from '../resolve.js';

/** `box files`: list, new folder, delete and rename inside a box (issue 29; `box cp` moves bytes). */
const group: Group = {
  ls: {
    usage: 'box files ls <box> [<path>]',
    summary: 'List a folder inside a box (default /)',
    async run(ctx, argv) {
      const { positionals } = parse(argv, this.usage, {}, [1, 2]);
      const id = await resolveBoxId(ctx.client, positionals[0]!);
      const res = await ctx.client.call('GET /v1/boxes/:box_id/directories', { params: { box_id: id }, query: { path: positionals[1] ?? '/' } });
      if (ctx.json) return json(res);
      table(
        ['name', 'type', 'size', 'mode'],
        res.entries.map((e) => [e.type === 'directory' ? `${e.name}/` : e.name, e.type, e.size, e.mode.toString(8).padStart(4, '0')]),
      );
    },
  },
  mkdir: {
    usage: 'box files mkdir <box> <path>',
    summary: 'Create a folder (and missing parents) inside a box',
    async run(ctx, argv) {
      const { positionals } = parse(argv, this.usage, {}, [2, 2]);
      const id = await resolveBoxId(ctx.client, positionals[0]!);
      const e = await ctx.client.call('POST /v1/boxes/:box_id/directories', { params: { box_id: id }, body: { path: positionals[1]! } });
      if (ctx.json) return json(e);
      process.stdout.write(`${positionals[0]}:${positionals[1]}/  created\n`);
    },
  },
  rm: {
    usage: 'box files rm <box> <path> [--recursive]',
    summary: 'Delete a file, link or empty folder inside a box (--recursive: a folder and everything in it)',
    async run(ctx, argv) {
      const { values, positionals } = parse(argv, this.usage, { recursive: { type: 'boolean', short: 'r' } }, [2, 2]);
      const id = await resolveBoxId(ctx.client, positionals[0]!);
      const res = await ctx.client.call('DELETE /v1/boxes/:box_id/paths', {
        params: { box_id: id },
        query: { path: positionals[1]!, recursive: values.recursive ? 'true' : undefined },
      });
      if (ctx.json) return json(res);
      process.stdout.write(`${positionals[0]}:${positionals[1]}  deleted\n`);
    },
  },
  mv: {
    usage: 'box files mv <box> <from> <to>',
    summary: 'Rename or move a path inside a box (refused when <to> exists)',
    async run(ctx, argv) {
      const { positionals } = parse(argv, this.usage, {}, [3, 3]);
      const id = await resolveBoxId(ctx.client, positionals[0]!);
      const e = await ctx.client.call('POST /v1/boxes/:box_id/paths/move', { params: { box_id: id }, body: { from: positionals[1]!, to: positionals[2]! } });
      if (ctx.json) return json(e);
      process.stdout.write(`${positionals[0]}:${positionals[1]} -> ${positionals[2]}\n`);
    },
  },
};

export const files: Command = {
  usage: 'box files ls|mkdir|rm|mv',
  summary: 'Browse and change files inside a box',
  group,
  run: (ctx, argv) => dispatch(ctx, group, 'box files', argv),
};
