import path from 'node:path';
import { UPLOAD_TEMP_PREFIX } from '@box/contract/volume-ops';
import { CliError } from '../errors.js';
import { dispatch, parse, type Command, type Group } from '../args.js';
import { seg } from '../client.js';
import { ago, bytes, fields, json, table } from '../output.js';
import { listAll, resolveVolumeId } from '../resolve.js';
import { download, upload } from './cp.js';

const volPath = (id: string, rest = '') => `/v1/box-volumes/${seg(id)}${rest}`;
const mtime = (s: number) => new Date(s * 1000).toISOString().replace(/\.\d+Z$/, 'Z');

const group: Group = {
  list: {
    usage: 'box volumes list',
    summary: 'Live volumes, oldest first',
    async run(ctx, argv) {
      parse(argv, this.usage, {});
      const all = await listAll(ctx.client, 'GET /v1/box-volumes');
      if (ctx.json) return json(all);
      table(
        ['volume id', 'name', 'backend', 'status', 'created'],
        all.map((v) => [v.volume_id, v.name, v.backend, v.status, ago(v.created_at)]),
      );
    },
  },
  create: {
    usage: 'box volumes create <name>',
    summary: 'Create a volume (answers the existing one when the name is taken)',
    async run(ctx, argv) {
      const { positionals } = parse(argv, this.usage, {}, [1, 1]);
      const v = await ctx.client.call('POST /v1/box-volumes', { body: { name: positionals[0]! } });
      if (ctx.json) json(v);
      else fields({ ...v });
    },
  },
  get: {
    usage: 'box volumes get <volume>',
    summary: 'Show a volume (by id or name)',
    async run(ctx, argv) {
      const { positionals } = parse(argv, this.usage, {}, [1, 1]);
      const v = await ctx.client.call('GET /v1/box-volumes/:volume_id', { params: { volume_id: await resolveVolumeId(ctx.client, positionals[0]!) } });
      if (ctx.json) json(v);
      else fields({ ...v });
    },
  },
  rm: {
    usage: 'box volumes rm <volume>',
    summary: 'Delete a volume and its files (refused while a live box mounts it)',
    async run(ctx, argv) {
      const { positionals } = parse(argv, this.usage, {}, [1, 1]);
      const v = await ctx.client.call('DELETE /v1/box-volumes/:volume_id', { params: { volume_id: await resolveVolumeId(ctx.client, positionals[0]!) } });
      if (ctx.json) json(v);
      else process.stdout.write(`${v.volume_id}  ${v.status}\n`);
    },
  },
  ls: {
    usage: 'box volumes ls <volume> [path] [--all]',
    summary: 'List a directory of a volume without mounting it (--all: also unfinished uploads)',
    async run(ctx, argv) {
      const { values, positionals } = parse(argv, this.usage, { all: { type: 'boolean', short: 'a' } }, [1, 2]);
      const id = await resolveVolumeId(ctx.client, positionals[0]!);
      const res = await ctx.client.call('GET /v1/box-volumes/:volume_id/directories', { params: { volume_id: id }, query: { path: positionals[1] } });
      if (!values.all) res.entries = res.entries.filter((e) => !e.name.startsWith(UPLOAD_TEMP_PREFIX));
      if (ctx.json) return json(res);
      table(
        ['mode', 'size', 'modified', 'name'],
        res.entries.map((e) => [
          `${e.type[0]}${e.mode.toString(8).padStart(4, '0')}`,
          e.type === 'directory' ? '' : bytes(e.size),
          mtime(e.modified_time),
          e.type === 'directory' ? `${e.name}/` : e.name,
        ]),
      );
    },
  },
  stat: {
    usage: 'box volumes stat <volume> <path>',
    summary: 'What exists at a path of a volume (following symlinks)',
    async run(ctx, argv) {
      const { positionals } = parse(argv, this.usage, {}, [2, 2]);
      const id = await resolveVolumeId(ctx.client, positionals[0]!);
      const e = await ctx.client.call('GET /v1/box-volumes/:volume_id/paths', { params: { volume_id: id }, query: { path: positionals[1] } });
      if (ctx.json) json(e);
      else fields({ ...e, mode: `0${e.mode.toString(8)}`, modified_time: mtime(e.modified_time) });
    },
  },
  put: {
    usage: 'box volumes put <volume> <local|-> [path] [--mode 0644] [--quiet]',
    summary: 'Stream a local file into a volume (path defaults to the file name at the top; "dir/" keeps the name)',
    async run(ctx, argv) {
      const { values, positionals } = parse(argv, this.usage, { mode: { type: 'string' }, quiet: { type: 'boolean', short: 'q' } }, [2, 3]);
      const [volume, local, given] = positionals as [string, string, string | undefined];
      if (given === undefined && local === '-') throw new CliError(`reading stdin needs a destination path\nusage: ${this.usage}`, 2);
      const id = await resolveVolumeId(ctx.client, volume);
      await upload(ctx.client, volPath(id, '/files'), local, given ?? path.basename(local), `${volume}:`, values.mode, !!values.quiet);
    },
  },
  mkdir: {
    usage: 'box volumes mkdir <volume> <path>',
    summary: 'Create a folder (and missing parents) in a volume',
    async run(ctx, argv) {
      const { positionals } = parse(argv, this.usage, {}, [2, 2]);
      const id = await resolveVolumeId(ctx.client, positionals[0]!);
      const e = await ctx.client.call('POST /v1/box-volumes/:volume_id/directories', { params: { volume_id: id }, body: { path: positionals[1]! } });
      if (ctx.json) return json(e);
      process.stdout.write(`${positionals[0]}:${positionals[1]}/  created\n`);
    },
  },
  'rm-path': {
    usage: 'box volumes rm-path <volume> <path> [--recursive]',
    summary: 'Delete a file, link or empty folder of a volume (--recursive: a folder and everything in it)',
    async run(ctx, argv) {
      const { values, positionals } = parse(argv, this.usage, { recursive: { type: 'boolean', short: 'r' } }, [2, 2]);
      const id = await resolveVolumeId(ctx.client, positionals[0]!);
      const res = await ctx.client.call('DELETE /v1/box-volumes/:volume_id/paths', {
        params: { volume_id: id },
        query: { path: positionals[1], recursive: values.recursive ? 'true' : undefined },
      });
      if (ctx.json) return json(res);
      process.stdout.write(`${positionals[0]}:${positionals[1]}  deleted\n`);
    },
  },
  mv: {
    usage: 'box volumes mv <volume> <from> <to>',
    summary: 'Rename or move a path within a volume (refused if <to> exists)',
    async run(ctx, argv) {
      const { positionals } = parse(argv, this.usage, {}, [3, 3]);
      const id = await resolveVolumeId(ctx.client, positionals[0]!);
      const e = await ctx.client.call('POST /v1/box-volumes/:volume_id/paths/move', {
        params: { volume_id: id },
        body: { from: positionals[1]!, to: positionals[2]! },
      });
      if (ctx.json) return json(e);
      process.stdout.write(`${positionals[0]}:${positionals[1]} → ${positionals[2]}\n`);
    },
  },
  fetch: {
    usage: 'box volumes fetch <volume> <path> <local|->',
    summary: 'Stream a file out of a volume',
    async run(ctx, argv) {
      const { values, positionals } = parse(argv, this.usage, { quiet: { type: 'boolean', short: 'q' } }, [3, 3]);
      const id = await resolveVolumeId(ctx.client, positionals[0]!);
      await download(ctx.client, volPath(id, '/files'), positionals[1]!, positionals[2]!, !!values.quiet);
    },
  },
};

export const volumes: Command = {
  usage: 'box volumes list|create|get|rm|ls|stat|put|mkdir|rm-path|mv|fetch',
  summary: 'Shared storage that outlives boxes',
  group,
  run: (ctx, argv) => dispatch(ctx, group, 'box volumes', argv),
};
