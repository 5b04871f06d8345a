import { intArg, parse, type Command, type Ctx, type Group } from '../args.js';
import type { Answer, CallArgs } from '@box/contract/call';
import { CliError } from '../errors.js';
import { fields, json, table } from '../output.js';
import { resolveBoxId } from '../resolve.js';

/** `X-Box-Override-Reason` for an org admin operating someone else's private box. */
const overrideOpt = { reason: { type: 'string' } } as const;
const overrideHeaders = (reason: string | undefined): Record<string, string> => (reason ? { 'x-box-override-reason': reason } : {});

type Op = 'pause' | 'resume' | 'terminate' | 'upgrade' | 'reboot' | 'sleep' | 'wake_at' | 'auto_sleep';
type OpKey = `POST /v1/boxes/:box_id/${Op}`;

async function transition(ctx: Ctx, ref: string, op: Op, body: object, reason?: string) {
  const id = await resolveBoxId(ctx.client, ref);
  // One call site for eight operations: the key is one of OpKey, the body the caller's for that op.
  const args = { params: { box_id: id }, body, headers: overrideHeaders(reason) } as CallArgs<'POST /v1/boxes/:box_id/sleep'>;
  const res: Answer<OpKey> = await ctx.client.call(`POST /v1/boxes/:box_id/${op}` as 'POST /v1/boxes/:box_id/sleep', args);
  if (ctx.json) return json(res);
  process.stdout.write(`${res.box_id}  ${res.status}${'resume_state' in res ? ` (${res.resume_state})` : ''}\n`);
}

const simple = (op: 'pause' | 'resume' | 'terminate' | 'upgrade' | 'reboot', summary: string): Command => ({
  usage: `box boxes ${op} <box> [--reason text]`,
  summary,
  async run(ctx, argv) {
    const { values, positionals } = parse(argv, this.usage, overrideOpt, [1, 1]);
    await transition(ctx, positionals[0]!, op, {}, values.reason);
  },
});

/** Accepts an ISO date-time or a relative `+90s` / `+15m` / `+2h`. */
function wakeAt(s: string | undefined): string | undefined {
  if (s === undefined) return undefined;
  const rel = /^\+(\d+)([smhd])$/.exec(s);
  if (rel) return new Date(Date.now() + Number(rel[1]) * { s: 1e3, m: 6e4, h: 36e5, d: 864e5 }[rel[2] as 's']).toISOString();
  if (Number.isNaN(Date.parse(s))) throw new CliError(`--wake-at ${s}: expected an ISO date-time or +N[smhd]`, 2);
  return new Date(s).toISOString();
}

export const lifecycle: Group = {
  pause: simple('pause', 'Pause a box (memory kept; wakes only on resume)'),
  resume: simple('resume', 'Resume a paused or sleeping box'),
  sleep: {
    usage: 'box boxes sleep <box> [--wake-at ISO|+15m] [--reason text]',
    summary: 'Put a box to sleep (wakes on exec, files, ingress, cron or --wake-at)',
    async run(ctx, argv) {
      const { values, positionals } = parse(argv, this.usage, { 'wake-at': { type: 'string' }, ...overrideOpt }, [1, 1]);
      await transition(ctx, positionals[0]!, 'sleep', { wake_at: wakeAt(values['wake-at']) }, values.reason);
    },
  },
  'wake-at': {
    usage: 'box boxes wake-at <box> <ISO|+15m|none>',
    summary: "Set or clear a box's scheduled wake",
    async run(ctx, argv) {
      const { positionals } = parse(argv, this.usage, {}, [2, 2]);
      await transition(ctx, positionals[0]!, 'wake_at', { wake_at: positionals[1] === 'none' ? null : wakeAt(positionals[1]) });
    },
  },
  'auto-sleep': {
    usage: 'box boxes auto-sleep <box> <seconds|off>',
    summary: 'Sleep the box after that many idle seconds, or never',
    async run(ctx, argv) {
      const { positionals } = parse(argv, this.usage, {}, [2, 2]);
      const off = positionals[1] === 'off';
      await transition(
        ctx,
        positionals[0]!,
        'auto_sleep',
        off ? { automatic: false } : { automatic: true, min_seconds_before_sleep: intArg(positionals[1], 'seconds', 10) },
      );
    },
  },
  upgrade: simple('upgrade', 'Upgrade a box to the current image'),
  reboot: simple('reboot', 'Reboot a box'),
  terminate: simple('terminate', 'Terminate a box (its disk is deleted)'),
  checkpoint: {
    usage: 'box boxes checkpoint <box> [--name n] [--ttl seconds]',
    summary: 'Checkpoint a box (memory and disk)',
    async run(ctx, argv) {
      const { values, positionals } = parse(argv, this.usage, { name: { type: 'string' }, ttl: { type: 'string' } }, [1, 1]);
      const id = await resolveBoxId(ctx.client, positionals[0]!);
      const cp = await ctx.client.call('POST /v1/boxes/:box_id/checkpoint', {
        params: { box_id: id },
        body: { name: values.name, ttl_seconds: intArg(values.ttl, 'ttl', 60) },
      });
      if (ctx.json) json(cp);
      else fields({ ...cp });
    },
  },
  fork: {
    usage: 'box boxes fork <box> <new-name> [--count n]',
    summary: 'Checkpoint a box and start new boxes from it (works on a paused or sleeping box)',
    async run(ctx, argv) {
      const { values, positionals } = parse(argv, this.usage, { count: { type: 'string' } }, [2, 2]);
      const id = await resolveBoxId(ctx.client, positionals[0]!);
      const res = await ctx.client.call('POST /v1/boxes/:box_id/fork', {
        params: { box_id: id },
        body: { name: positionals[1]!, count: intArg(values.count, 'count', 1, 8) },
      });
      if (ctx.json) return json(res);
      table(
        ['box id', 'name', 'status', 'from checkpoint'],
        res.boxes.map((b) => [b.box_id, b.name, b.status, res.checkpoint_id]),
      );
    },
  },
};
