import { dispatch, parse, type Command, type Group } from '../args.js';
import { bytes, json, table } from '../output.js';

const list: Command = {
  usage: 'box apps list [--json]',
  summary: 'Apps with their box counts and resources',
  async run(ctx, argv) {
    parse(argv, this.usage, {});
    const res = await ctx.client.call('GET /v1/apps');
    if (ctx.json) return json(res);
    table(
      ['app id', 'name', 'boxes', 'running', 'paused', 'sleeping', 'failed', 'vcpu', 'memory', 'disk'],
      res.data.map((a) => [
        a.app_id,
        a.app_name,
        a.box_count,
        a.running_count,
        a.paused_count,
        a.sleeping_count,
        a.failed_count,
        a.cpu_requested_vcpu,
        bytes(a.memory_requested_bytes),
        bytes(a.disk_used_bytes),
      ]),
    );
  },
};

const find: Command = {
  usage: 'box apps find <name> [--create]',
  summary: 'Find an app by name (404 when missing, unless --create)',
  async run(ctx, argv) {
    const { values, positionals } = parse(argv, this.usage, { create: { type: 'boolean' } }, [1, 1]);
    const app = await ctx.client.call('POST /v1/apps/find', { body: { name: positionals[0]!, mint_if_missing: !!values.create } });
    if (ctx.json) return json(app);
    table(['app id', 'name', 'created'], [[app.id, app.name, app.created_at]]);
  },
};

const group: Group = { list, find };
export const apps: Command = { usage: 'box apps list|find', summary: 'Apps group boxes', group, run: (ctx, argv) => dispatch(ctx, group, 'box apps', argv) };
