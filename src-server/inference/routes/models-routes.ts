import type { RouteRegistrar } from '../../app-context.js';
import type { ModelEntry, ModelList } from '../../contract/inference.js';
import type { EngineRegistry } from '../engines/registry.js';

/** GET /v1/models: every engine's models, one body for the OpenAI and Anthropic clients. */
export function modelsRoutes(r: RouteRegistrar, engines: EngineRegistry) {
  r.add({
    method: 'get', path: '/v1/models', area: 'inference', tag: 'inference', auth: 'any',
    summary: 'List the models of every engine, named <engine>/<model>',
    handler: async (): Promise<ModelList> => {
      const data: ModelEntry[] = (await engines.listModels()).map((m) => ({
        id: m.id,
        object: 'model',
        created: m.created,
        owned_by: m.id.slice(0, m.id.indexOf('/')),
        type: 'model',
        display_name: m.displayName,
        created_at: new Date(m.created * 1000).toISOString(),
      }));
      return { object: 'list', data, has_more: false, first_id: data[0]?.id ?? null, last_id: data[data.length - 1]?.id ?? null };
    },
  });
}
