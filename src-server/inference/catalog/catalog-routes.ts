import type { RouteRegistrar } from '../../http/route.js';
import { PullBody, PullParams } from '../../contract/inference.js';
import { notFound } from '../../http/api-errors.js';
import { Reply } from '../../http/route.js';
import type { ModelPulls } from './pulls.js';

/** The model catalog and resumable pulls (ours, beyond the spec: contract/routes.ts). */
export function catalogRoutes(r: RouteRegistrar, pulls: ModelPulls) {
  r.add({
    method: 'get',
    path: '/v1/local-models/catalog',
    area: 'common',
    tag: 'engines',
    summary: 'Curated small instruction-tuned GGUF models the embedded engine can run',
    handler: () => ({ data: pulls.catalog }),
  });
  r.add({
    method: 'post',
    path: '/v1/local-models/pull',
    area: 'common',
    tag: 'engines',
    body: PullBody,
    summary: 'Download a catalog model (catalog_id) or a GGUF URL; 202 with the download object; resumes after a restart',
    handler: async ({ body }) => new Reply(202, await pulls.begin(body)),
  });
  r.add({
    method: 'get',
    path: '/v1/local-models/pulls',
    area: 'common',
    tag: 'engines',
    summary: 'Recent model pulls, newest first',
    handler: async () => ({ data: await pulls.list() }),
  });
  r.add({
    method: 'get',
    path: '/v1/local-models/pulls/:pull_id',
    area: 'common',
    tag: 'engines',
    params: PullParams,
    summary: 'One model pull and its progress',
    handler: async ({ params }) => {
      const p = await pulls.get(params.pull_id);
      if (!p) throw notFound(`No model pull ${params.pull_id}.`, null, 'pull_id');
      return p;
    },
  });
  r.add({
    method: 'post',
    path: '/v1/local-models/pulls/:pull_id/cancel',
    area: 'common',
    tag: 'engines',
    params: PullParams,
    idempotent: false,
    summary: 'Cancel a model pull (the partial file is deleted); a finished pull is answered unchanged',
    handler: async ({ params }) => await pulls.cancel(params.pull_id),
  });
}
