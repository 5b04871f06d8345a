import type { RouteRegistrar } from '../../app-context.js';
import { EngineParams, UpsertEngineBody, type EngineInfo } from '../../contract/inference.js';
import { notFound } from '../../http/errors.js';
import { upstreamInfo, type EngineRegistry } from '../engines/registry.js';
import type { EnginesRepo } from '../store/engines-repo.js';

/** Upstream engines: any OpenAI- or Anthropic-compatible base URL with its key (sealed at rest). */
export function enginesRoutes(r: RouteRegistrar, engines: EngineRegistry, repo: EnginesRepo) {
  r.add({
    method: 'get', path: '/v1/engines', area: 'common', tag: 'engines',
    summary: 'The embedded engine and every configured upstream',
    handler: (): { data: EngineInfo[] } => ({ data: engines.info() }),
  });
  r.add({
    method: 'post', path: '/v1/engines', area: 'common', tag: 'engines',
    summary: 'Add or replace an upstream engine (api_key omitted keeps the stored key)',
    body: UpsertEngineBody,
    handler: ({ body }) => {
      repo.upsert({ name: body.name, kind: body.kind, baseUrl: body.base_url, apiKey: body.api_key }, Date.now());
      engines.reload();
      return upstreamInfo(repo.get(body.name)!);
    },
  });
  r.add({
    method: 'delete', path: '/v1/engines/:name', area: 'common', tag: 'engines',
    summary: 'Remove an upstream engine',
    params: EngineParams,
    handler: ({ params }) => {
      const row = repo.get(params.name);
      if (!row || !repo.delete(params.name)) throw notFound(`No engine named "${params.name}".`, null, 'name');
      engines.reload();
      return upstreamInfo(row);
    },
  });
}
