import { z } from 'zod';
import type { RouteRegistrar } from '../../../platform/http/route.js';
import type { ModelEntry, ModelList } from '@box/contract/inference';
import { notFound } from '../../../platform/http/api-errors.js';
import type { EngineModel } from '../engines/engine.js';
import type { EngineRegistry } from '../engines/registry.js';

const entry = (m: EngineModel): ModelEntry => ({
  id: m.id,
  object: 'model',
  created: m.created,
  owned_by: m.id.slice(0, m.id.indexOf('/')),
  type: 'model',
  display_name: m.displayName,
  created_at: new Date(m.created * 1000).toISOString(),
  ...(m.embeds ? { capabilities: ['embedding' as const] } : {}),
});

const ModelIdParams = z.object({ model_id: z.string().min(1).max(512) });
const SplitModelParams = z.object({ engine: z.string().min(1).max(64), model: z.string().min(1).max(512) });

/**
 * GET /v1/models: every engine's models, one body for the OpenAI and Anthropic clients.
 * GET /v1/models/{model_id}: one of them; clients send the id's slash encoded (`box%2Fecho`,
 * which Express decodes into one parameter), some send it raw (`/v1/models/box/echo`).
 */
export function modelsRoutes(r: RouteRegistrar, engines: EngineRegistry) {
  r.add({
    method: 'get',
    path: '/v1/models',
    plain: true, // served ahead of Express (http/plain-front.ts): the handler uses node:http's API only
    area: 'inference',
    tag: 'inference',
    auth: 'any',
    summary: 'List the models of every engine, named <engine>/<model>',
    handler: async (): Promise<ModelList> => {
      const data = (await engines.listModels()).map(entry);
      return { object: 'list', data, has_more: false, first_id: data[0]?.id ?? null, last_id: data[data.length - 1]?.id ?? null };
    },
  });
  const one = async (id: string): Promise<ModelEntry> => {
    const m = (await engines.listModels()).find((x) => x.id === id);
    if (!m) throw notFound(`The model "${id}" does not exist; GET /v1/models lists the available ones.`, 'model_not_found', 'model_id');
    return entry(m);
  };
  r.add({
    method: 'get',
    path: '/v1/models/:model_id',
    area: 'inference',
    tag: 'inference',
    auth: 'any',
    params: ModelIdParams,
    summary: 'One model by id (<engine>/<model>, the slash sent as %2F)',
    handler: ({ params }) => one(params.model_id),
  });
  r.add({
    method: 'get',
    path: '/v1/models/:engine/:model',
    area: 'inference',
    tag: 'inference',
    auth: 'any',
    params: SplitModelParams,
    summary: 'One model by id, the slash sent unencoded',
    handler: ({ params }) => one(`${params.engine}/${params.model}`),
  });
}
