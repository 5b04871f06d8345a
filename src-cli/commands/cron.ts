import { dispatch, intArg, parse, splitDashDash, type Command, type Group } from '../args.js';
import { CliError } from '../errors.js';
import { ago, fields, json, table } from '../output.js';
import { listAll, resolveBoxId } from '../resolve.js';
import type { CronJob } from '@box/contract/cron';

const group: Group = {
  list: {
    usage: 'box cron list [<box>]',
    summary: "A box's cron jobs (does not wake it), or every job of the organization",
    async run(ctx, argv) {
      const { positionals } = parse(argv, this.usage, {}, [0, 1]);
      const jobs: CronJob[] = [];
      if (positionals[0]) {
        const boxId = await resolveBoxId(ctx.client, positionals[0]);
        for (let offset = 0; ; offset += 100) {
          const page = await ctx.client.call('GET /v1/boxes/:box_id/cron', { params: { box_id: boxId }, query: { limit: 100, offset } });
          jobs.push(...page.data);
          if (!page.has_more) break;
        }
      } else {
        jobs.push(...(await ctx.client.call('GET /v1/cron')).data);
      }
      if (ctx.json) return json(jobs);
      // Box names, not only ids: one list call covers every box the jobs name.
      const names = new Map<string, string>();
      if (jobs.length) for (const b of await listAll(ctx.client, 'GET /v1/boxes')) names.set(b.box_id, b.name);
      table(
        ['cron id', 'box', 'schedule', 'tz', 'next run', 'last run', 'command'],
        jobs.map((j) => [j.id, names.get(j.box_id) ?? j.box_id, j.schedule, j.timezone, ago(j.next_run_at), ago(j.last_run_at), j.command]),
      );
    },
  },
  add: {
    usage: 'box cron add <box> "<m h dom mon dow>" [--tz Zone] [--cwd dir] [--user u] [--env K=V]... [--timeout s] -- <command>',
    summary: 'Add a cron job (the command runs under /bin/sh -c)',
    async run(ctx, argv) {
      const [head, cmd] = splitDashDash(argv);
      const { values, positionals } = parse(
        head,
        this.usage,
        {
          tz: { type: 'string' },
          cwd: { type: 'string' },
          user: { type: 'string' },
          env: { type: 'string', multiple: true },
          timeout: { type: 'string' },
        },
        [2, cmd ? 2 : 3],
      );
      const command = cmd ? cmd.join(' ') : positionals[2];
      if (!command) throw new CliError(`no command given\nusage: ${this.usage}`, 2);
      const env: Record<string, string> = {};
      for (const kv of values.env ?? []) {
        const i = kv.indexOf('=');
        if (i <= 0) throw new CliError(`--env ${kv}: expected NAME=value`, 2);
        env[kv.slice(0, i)] = kv.slice(i + 1);
      }
      const boxId = await resolveBoxId(ctx.client, positionals[0]!);
      const job = await ctx.client.call('POST /v1/boxes/:box_id/cron', {
        params: { box_id: boxId },
        body: {
          schedule: positionals[1]!,
          timezone: values.tz,
          command,
          cwd: values.cwd,
          user: values.user,
          env: Object.keys(env).length ? env : undefined,
          timeout: intArg(values.timeout, 'timeout', 1),
        },
      });
      if (ctx.json) json(job);
      else fields({ ...job });
    },
  },
  rm: {
    usage: 'box cron rm <box> <cron_id>',
    summary: 'Delete a cron job',
    async run(ctx, argv) {
      const { positionals } = parse(argv, this.usage, {}, [2, 2]);
      const boxId = await resolveBoxId(ctx.client, positionals[0]!);
      const res = await ctx.client.call('DELETE /v1/boxes/:box_id/cron/:cron_id', { params: { box_id: boxId, cron_id: positionals[1]! } });
      if (ctx.json) return json(res);
      process.stdout.write(`${positionals[1]}  deleted\n`);
    },
  },
  run: {
    usage: 'box cron run <box> <cron_id>',
    summary: 'Run a cron job now',
    async run(ctx, argv) {
      const { positionals } = parse(argv, this.usage, {}, [2, 2]);
      const boxId = await resolveBoxId(ctx.client, positionals[0]!);
      const res = await ctx.client.call('POST /v1/boxes/:box_id/cron/:cron_id/run', { params: { box_id: boxId, cron_id: positionals[1]! } });
      if (ctx.json) json(res);
      else fields(res);
    },
  },
  runs: {
    usage: 'box cron runs <box> <cron_id>',
    summary: 'Recent runs of a cron job, newest first',
    async run(ctx, argv) {
      const { positionals } = parse(argv, this.usage, {}, [2, 2]);
      const boxId = await resolveBoxId(ctx.client, positionals[0]!);
      const res = await ctx.client.call('GET /v1/boxes/:box_id/cron/:cron_id/runs', { params: { box_id: boxId, cron_id: positionals[1]! } });
      if (ctx.json) return json(res);
      table(
        ['run id', 'started', 'status', 'code', 'output'],
        res.data.map((r) => [r.run_id, ago(r.started_at), r.status, r.return_code, (r.output_tail ?? '').trim().split('\n').pop()]),
      );
    },
  },
};

export const cron: Command = {
  usage: 'box cron list|add|rm|run|runs',
  summary: 'Scheduled commands of boxes',
  group,
  run: (ctx, argv) => dispatch(ctx, group, 'box cron', argv),
};
