import { dispatch, intArg, parse, type Command, type Group } from '../args.js';
import { CliError } from '../errors.js';
import { ago, fields, json, table } from '../output.js';
import { listAll, resolveAppId, resolveBox, resolveBoxId, resolvePolicyId, resolveVolumeId } from '../resolve.js';
import type { BodyOf } from '@box/contract/call';
import type { Box } from '@box/contract/boxes';
import { withPreparationProgress } from '../progress.js';
import { lifecycle } from './boxes-lifecycle.js';
import { consoleCmd } from './box-console.js';

function showBox(b: Box) {
  fields({
    box_id: b.box_id,
    name: b.name,
    status: b.status,
    error: b.error_message,
    app_id: b.app_id,
    image: b.image,
    size: `${b.vcpu_count} vcpu, ${b.memory_mib} MiB, ${b.disk_gib} GiB`,
    visibility: b.visibility,
    ports: b.ingress_ports.join(', ') || null,
    urls: b.ingress_urls.map((u) => u.url).join('  ') || null,
    volumes: b.volume_mounts.map((m) => `${m.volume_id}:${m.mount_path}`).join(', ') || null,
    http_policy_id: b.http_policy_id,
    inference_budget_tokens: b.inference_budget_tokens ?? 'unlimited',
    wake_at: b.wake_at,
    checkpoint_generation: b.checkpoint_generation,
    on_checkpoint: b.on_checkpoint_id,
    created_at: b.created_at,
  });
}

const list: Command = {
  usage: 'box boxes list [--app A] [--status s] [--search text] [--all]',
  summary: 'List boxes (terminated ones only with --all or --status terminated)',
  async run(ctx, argv) {
    const { values } = parse(argv, this.usage, { app: { type: 'string' }, status: { type: 'string' }, search: { type: 'string' }, all: { type: 'boolean' } });
    const app_id = values.app ? await resolveAppId(ctx.client, values.app, false) : undefined;
    const query = Object.fromEntries(Object.entries({ app_id, status: values.status, search: values.search }).filter(([, v]) => v !== undefined)) as Record<
      string,
      string
    >;
    const boxes = await listAll(ctx.client, 'GET /v1/boxes', query);
    const shown = values.all || values.status ? boxes : boxes.filter((b) => b.status !== 'terminated');
    if (ctx.json) return json(shown);
    table(
      ['box id', 'name', 'status', 'size', 'ports', 'created'],
      shown.map((b) => [b.box_id, b.name, b.status, `${b.vcpu_count}c/${b.memory_mib}M`, b.ingress_ports.join(','), ago(b.created_at)]),
    );
  },
};

const create: Command = {
  usage:
    'box boxes create <name> [--app A] [--size s|m|l] [--memory MiB] [--disk GiB] [--image I] [--private] [--volume vol:/path]... [--port 8080]... [--policy hp_...] [--auto-sleep seconds] [--inference-budget tokens]',
  summary: 'Create a box and wait until it runs (the app "default" is used and created when --app is absent)',
  async run(ctx, argv) {
    const { values, positionals } = parse(
      argv,
      this.usage,
      {
        app: { type: 'string' },
        size: { type: 'string' },
        memory: { type: 'string' },
        disk: { type: 'string' },
        image: { type: 'string' },
        private: { type: 'boolean' },
        volume: { type: 'string', multiple: true },
        port: { type: 'string', multiple: true },
        policy: { type: 'string' },
        'auto-sleep': { type: 'string' },
        'inference-budget': { type: 'string' },
        'idempotency-key': { type: 'string' },
      },
      [1, 1],
    );
    if (values.size && !['s', 'm', 'l'].includes(values.size)) throw new CliError('--size must be s, m or l', 2);
    const volume_mounts = [];
    for (const v of values.volume ?? []) {
      const i = v.indexOf(':');
      if (i <= 0 || !v.slice(i + 1).startsWith('/')) throw new CliError(`--volume ${v}: expected <volume name or id>:/absolute/path`, 2);
      volume_mounts.push({ volume_id: await resolveVolumeId(ctx.client, v.slice(0, i)), mount_path: v.slice(i + 1) });
    }
    const autoSleep = intArg(values['auto-sleep'], 'auto-sleep', 10);
    const body: BodyOf<'POST /v1/boxes'> = {
      app_id: await resolveAppId(ctx.client, values.app ?? 'default', true),
      name: positionals[0]!,
      image: values.image,
      size: values.size as 's' | 'm' | 'l' | undefined,
      memory_mib: intArg(values.memory, 'memory', 1),
      disk_gib: intArg(values.disk, 'disk', 1),
      visibility: values.private ? 'private' : undefined,
      ingress_ports: values.port?.map((p) => intArg(p, 'port', 1, 65535)!),
      volume_mounts: volume_mounts.length ? volume_mounts : undefined,
      http_policy_id: values.policy ? await resolvePolicyId(ctx.client, values.policy) : undefined,
      auto_sleep: autoSleep === undefined ? undefined : { automatic: true, min_seconds_before_sleep: autoSleep },
      inference_budget_tokens: intArg(values['inference-budget'], 'inference-budget', 0),
    };
    const headers: Record<string, string> = values['idempotency-key'] ? { 'idempotency-key': values['idempotency-key'] } : {};
    // The first create waits for the guest image: say what is happening and how long.
    const box = await withPreparationProgress(ctx.client, ctx.client.call('POST /v1/boxes', { body, headers }), ctx.json);
    if (ctx.json) json(box);
    else showBox(box);
    return box.status === 'failed' ? 1 : 0;
  },
};

const get: Command = {
  usage: 'box boxes get <box>',
  summary: 'Show one box (by id or name)',
  async run(ctx, argv) {
    const { positionals } = parse(argv, this.usage, {}, [1, 1]);
    const box = await resolveBox(ctx.client, positionals[0]!);
    if (ctx.json) json(box);
    else showBox(box);
  },
};

const budget: Command = {
  usage: 'box boxes budget <box> [<tokens>|unlimited]',
  summary: "Show a box's inference token budget and what it has used; with a value, set it first",
  async run(ctx, argv) {
    const { positionals } = parse(argv, this.usage, {}, [1, 2]);
    const id = await resolveBoxId(ctx.client, positionals[0]!);
    const value = positionals[1];
    if (value !== undefined) {
      const tokens = value === 'unlimited' ? null : intArg(value, 'tokens', 0)!;
      await ctx.client.call('PUT /v1/boxes/:box_id/inference-budget', { params: { box_id: id }, body: { inference_budget_tokens: tokens } });
    }
    const b = await ctx.client.call('GET /v1/boxes/:box_id/inference-budget', { params: { box_id: id } });
    if (ctx.json) return json(b);
    fields({
      box_id: b.box_id,
      inference_budget_tokens: b.inference_budget_tokens ?? 'unlimited',
      used_tokens: b.used_tokens,
      remaining_tokens: b.remaining_tokens ?? 'unlimited',
    });
  },
};

const checkpoints: Command = {
  usage: 'box boxes checkpoints [<box>] [--name n]',
  summary: 'List checkpoints, of one box or of the organization, with the boxes that stand on each',
  async run(ctx, argv) {
    const { values, positionals } = parse(argv, this.usage, { name: { type: 'string' } }, [0, 1]);
    const box_id = positionals[0] ? await resolveBoxId(ctx.client, positionals[0]) : undefined;
    const res = await ctx.client.call('GET /v1/box-checkpoints', { query: { box_id, name: values.name } });
    if (ctx.json) return json(res);
    // Which boxes stand on each checkpoint (taken, started from or restored to last).
    const here = new Map<string, string[]>();
    for (const b of await listAll(ctx.client, 'GET /v1/boxes'))
      if (b.on_checkpoint_id) here.set(b.on_checkpoint_id, [...(here.get(b.on_checkpoint_id) ?? []), b.name]);
    table(
      ['checkpoint id', 'box id', 'name', 'generation', 'status', 'size', 'created', 'boxes here'],
      res.data.map((c) => [
        c.checkpoint_id,
        c.box_id,
        c.name,
        c.checkpoint_generation,
        c.status,
        c.size_bytes,
        ago(c.created_at),
        here.get(c.checkpoint_id)?.join(', ') ?? null,
      ]),
    );
  },
};

const restore: Command = {
  usage: 'box boxes restore <checkpoint_id> <new-name> | box boxes restore <checkpoint_id> --in-place',
  summary: 'Create a new running box from a checkpoint, or (--in-place) take its own box back to it: what that box holds now is lost',
  async run(ctx, argv) {
    const { values, positionals } = parse(argv, this.usage, { 'in-place': { type: 'boolean' } }, [1, 2]);
    const checkpoint_id = positionals[0]!;
    if (values['in-place'] && positionals[1]) throw new CliError(`--in-place restores the checkpoint's own box: give no new name\nusage: ${this.usage}`, 2);
    if (!values['in-place'] && !positionals[1]) throw new CliError(`missing argument: the new box's name (or --in-place)\nusage: ${this.usage}`, 2);
    const box = values['in-place']
      ? await ctx.client.call('POST /v1/boxes/:box_id/restore', {
          params: { box_id: (await ctx.client.call('GET /v1/box-checkpoints/:checkpoint_id', { params: { checkpoint_id } })).box_id },
          body: { checkpoint_id },
        })
      : await ctx.client.call('POST /v1/boxes/from_checkpoint', { body: { checkpoint_id, name: positionals[1]! } });
    if (ctx.json) json(box);
    else showBox(box);
  },
};

const group: Group = { list, create, get, budget, console: consoleCmd, ...lifecycle, checkpoints, restore };
export const boxes: Command = {
  usage: 'box boxes list|create|get|budget|console|pause|resume|sleep|wake-at|auto-sleep|terminate|checkpoint|fork|checkpoints|restore',
  summary: 'Create and operate boxes',
  group,
  run: (ctx, argv) => dispatch(ctx, group, 'box boxes', argv),
};
