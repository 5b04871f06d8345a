import { dispatch, parse, type Command, type Group } from '../args.js';
import { ago, bytes, fields, json, table } from '../output.js';
import type { Template } from '@box/contract/templates';

/** The state column: building shows its phase and percent. */
const stateOf = (t: Template) => (t.state === 'building' && t.progress ? `building ${t.progress.phase} ${Math.round(t.progress.percent)}%` : t.state);

const group: Group = {
  ls: {
    usage: 'box template ls',
    summary: 'Warm templates boxes are cloned from: image, size, state, size on disk, boxes using each',
    async run(ctx, argv) {
      parse(argv, this.usage, {});
      const { data } = await ctx.client.call('GET /v1/templates');
      if (ctx.json) return json(data);
      table(
        ['template id', 'image', 'size', 'cpu/mem/disk', 'state', 'built', 'bytes', 'boxes', 'warm', 'spare'],
        data.map((t) => [
          t.template_id,
          t.volume_slots ? `${t.image} +volumes` : t.image,
          t.size,
          `${t.vcpu_count}/${t.memory_mib}M/${t.disk_gib}G`,
          stateOf(t),
          t.built_at ? ago(t.built_at) : '-',
          bytes(t.bytes),
          t.boxes,
          t.warm_clones ?? 0,
          t.restore_spares ?? 0,
        ]),
      );
      for (const t of data.filter((x) => x.error)) process.stderr.write(`${t.template_id}: ${t.error}\n`);
    },
  },
  rm: {
    usage: 'box template rm <template_id>',
    summary: 'Delete a template (refused while a box or checkpoint builds on it); the next create rebuilds it',
    async run(ctx, argv) {
      const { positionals } = parse(argv, this.usage, {}, [1, 1]);
      const t = await ctx.client.call('DELETE /v1/templates/:template_id', { params: { template_id: positionals[0]! } });
      if (ctx.json) json(t);
      else fields({ deleted: t.template_id, image: t.image, size: t.size, bytes: bytes(t.bytes) });
    },
  },
};
group.list = group.ls!;

export const template: Command = {
  usage: 'box template ls|rm',
  summary: 'Warm templates (a booted image + size that new boxes clone)',
  group,
  run: (ctx, argv) => dispatch(ctx, group, 'box template', argv),
};
