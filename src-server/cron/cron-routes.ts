import type { RouteRegistrar } from '../app-context.js';
import { boxFor } from '../boxes/box-access.js';
import { BoxIdParams } from '../contract/boxes.js';
import { page, PageQuery } from '../contract/common.js';
import { CreateCronBody, CronParams } from '../contract/cron.js';
import { Reply } from '../http/route.js';
import { toJob } from './cron-view.js';

export function cronRoutes(r: RouteRegistrar) {
  r.add({
    method: 'get',
    path: '/v1/boxes/:box_id/cron',
    area: 'box',
    tag: 'cron',
    params: BoxIdParams,
    query: PageQuery,
    summary: "One page of the box's cron jobs, oldest first; never wakes a paused or sleeping box",
    handler: ({ app, auth, req, params, query }) => {
      boxFor(app, req, auth, params.box_id, 'read');
      const { rows, total } = app.services.cron.page(params.box_id, query.limit, query.offset);
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
    handler: ({ app, auth, req, params, body }) => app.services.cron.create(boxFor(app, req, auth, params.box_id, 'cron'), body),
  });

  r.add({
    method: 'get',
    path: '/v1/boxes/:box_id/cron/:cron_id',
    area: 'box',
    tag: 'cron',
    params: CronParams,
    summary: 'Get a cron job',
    handler: ({ app, auth, req, params }) => {
      boxFor(app, req, auth, params.box_id, 'read');
      return toJob(app.services.cron.get(params.box_id, params.cron_id));
    },
  });

  r.add({
    method: 'delete',
    path: '/v1/boxes/:box_id/cron/:cron_id',
    area: 'box',
    tag: 'cron',
    params: CronParams,
    summary: 'Delete a cron job',
    handler: ({ app, auth, req, params }) => {
      boxFor(app, req, auth, params.box_id, 'cron');
      return app.services.cron.delete(app.services.cron.get(params.box_id, params.cron_id));
    },
  });

  r.add({
    method: 'post',
    path: '/v1/boxes/:box_id/cron/:cron_id/run',
    area: 'box',
    tag: 'cron',
    params: CronParams,
    summary: 'Run a cron job now; answers 202 with the run, which continues in the background',
    handler: ({ app, auth, req, params }) => {
      boxFor(app, req, auth, params.box_id, 'exec');
      const row = app.services.cron.get(params.box_id, params.cron_id);
      const runner = app.services.cronRunner;
      // The spec's last_run_at is when the last run started, whatever started it.
      const startedAt = new Date().toISOString();
      app.services.cron.markRan(row.id, startedAt);
      const started = runner.run(row, startedAt);
      return Promise.race([started, new Promise((r) => setTimeout(r, 50))]).then(() => new Reply(202, app.services.cron.runs(row.id, 1)[0]));
    },
  });

  r.add({
    method: 'get',
    path: '/v1/boxes/:box_id/cron/:cron_id/runs',
    area: 'box',
    tag: 'cron',
    params: CronParams,
    summary: 'Recent runs of a cron job, newest first',
    handler: ({ app, auth, req, params }) => {
      boxFor(app, req, auth, params.box_id, 'read');
      app.services.cron.get(params.box_id, params.cron_id);
      return { data: app.services.cron.runs(params.cron_id) };
    },
  });

  r.add({
    method: 'get',
    path: '/v1/cron',
    area: 'box',
    tag: 'cron',
    summary: 'Every cron job of the organization, across boxes',
    handler: ({ app, auth }) => ({ data: app.services.cron.listOrg(auth.orgId) }),
  });
}
