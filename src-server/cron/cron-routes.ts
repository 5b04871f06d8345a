import type { RouteRegistrar } from '../http/route.js';
import type { BoxAccess } from '../boxes/ports.js';
import { BoxIdParams } from '../contract/boxes.js';
import { page, PageQuery } from '../contract/common.js';
import { CreateCronBody, CronParams } from '../contract/cron.js';
import { Reply } from '../http/route.js';
import { toJob } from './cron-view.js';
import type { CronRunner } from './cron-runner.js';
import type { CronService } from './cron-service.js';

export function cronRoutes(r: RouteRegistrar, s: { cron: CronService; cronRunner: CronRunner; access: BoxAccess }) {
  const { access } = s;
  r.add({
    method: 'get',
    path: '/v1/boxes/:box_id/cron',
    area: 'box',
    tag: 'cron',
    params: BoxIdParams,
    query: PageQuery,
    summary: "One page of the box's cron jobs, oldest first; never wakes a paused or sleeping box",
    handler: async ({ auth, req, params, query }) => {
      await access.boxFor(req, auth, params.box_id, 'read');
      const { rows, total } = await s.cron.page(params.box_id, query.limit, query.offset);
      return page(rows, query, total);
    },
  });

  r.add({
    method: 'post',
    path: '/v1/boxes/:box_id/cron',
    area: 'box',
    tag: 'cron',
    params: BoxIdParams,
    body: CreateCronBody,
    summary: 'Add a cron job (five-field schedule read in an IANA time zone)',
    handler: async ({ auth, req, params, body }) => await s.cron.create(await access.boxFor(req, auth, params.box_id, 'cron'), body),
  });

  r.add({
    method: 'get',
    path: '/v1/boxes/:box_id/cron/:cron_id',
    area: 'box',
    tag: 'cron',
    params: CronParams,
    summary: 'Get a cron job',
    handler: async ({ auth, req, params }) => {
      await access.boxFor(req, auth, params.box_id, 'read');
      return toJob(await s.cron.get(params.box_id, params.cron_id));
    },
  });

  r.add({
    method: 'delete',
    path: '/v1/boxes/:box_id/cron/:cron_id',
    area: 'box',
    tag: 'cron',
    params: CronParams,
    summary: 'Delete a cron job',
    handler: async ({ auth, req, params }) => {
      await access.boxFor(req, auth, params.box_id, 'cron');
      return await s.cron.delete(await s.cron.get(params.box_id, params.cron_id));
    },
  });

  r.add({
    method: 'post',
    path: '/v1/boxes/:box_id/cron/:cron_id/run',
    area: 'box',
    tag: 'cron',
    params: CronParams,
    summary: 'Run a cron job now; answers 202 with the run, which continues in the background',
    handler: async ({ auth, req, params }) => {
      await access.boxFor(req, auth, params.box_id, 'exec');
      const row = await s.cron.get(params.box_id, params.cron_id);
      const runner = s.cronRunner;
      // The spec's last_run_at is when the last run started, whatever started it.
      const startedAt = new Date().toISOString();
      await s.cron.markRan(row.id, startedAt);
      const started = await runner.run(row, startedAt);
      return Promise.race([started, new Promise((r) => setTimeout(r, 50))]).then(async () => new Reply(202, (await s.cron.runs(row.id, 1))[0]));
    },
  });

  r.add({
    method: 'get',
    path: '/v1/boxes/:box_id/cron/:cron_id/runs',
    area: 'box',
    tag: 'cron',
    params: CronParams,
    summary: 'Recent runs of a cron job, newest first',
    handler: async ({ auth, req, params }) => {
      await access.boxFor(req, auth, params.box_id, 'read');
      await s.cron.get(params.box_id, params.cron_id);
      return { data: await s.cron.runs(params.cron_id) };
    },
  });

  r.add({
    method: 'get',
    path: '/v1/cron',
    area: 'box',
    tag: 'cron',
    summary: 'Every cron job of the organization, across boxes',
    handler: async ({ auth }) => ({ data: await s.cron.listOrg(auth.orgId) }),
  });
}
