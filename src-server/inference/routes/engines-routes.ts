import type { RouteRegistrar } from '../../http/route.js';
import { DiscoveryBody, EngineParams, EngineTest, UpsertEngineBody, type EngineInfo } from '../../contract/inference.js';
import type { EnginesService } from '../engines/engines-service.js';

/**
 * Upstream engines: any OpenAI- or Anthropic-compatible base URL with its key (sealed at
 * rest); engines found on loopback ports (discovery), which DELETE dismisses.
 */
export function enginesRoutes(r: RouteRegistrar, s: EnginesService) {
  const { registry: engines, discovery } = s;
  r.add({
    method: 'get',
    path: '/v1/engines',
    area: 'common',
    tag: 'engines',
    summary: 'The embedded engine, every configured upstream, discovered local engines and the built-in test engine',
    handler: (): { data: EngineInfo[] } => ({ data: engines.info() }),
  });
  const discoveryState = () => ({ enabled: discovery.enabled, allowed: discovery.allowed, probes: discovery.probes });
  r.add({
    method: 'get',
    path: '/v1/engines/discovery',
    area: 'common',
    tag: 'engines',
    summary: 'Local engine discovery: on or off, and the loopback ports it probes',
    handler: discoveryState,
  });
  r.add({
    method: 'put',
    path: '/v1/engines/discovery',
    area: 'common',
    tag: 'engines',
    body: DiscoveryBody,
    summary: 'Turn local engine discovery on or off (turning it on probes at once)',
    handler: async ({ body }) => {
      await discovery.setEnabled(body.enabled);
      if (body.enabled) await discovery.scan();
      return discoveryState();
    },
  });
  r.add({
    method: 'post',
    path: '/v1/engines/discovery/scan',
    area: 'common',
    tag: 'engines',
    idempotent: false,
    summary: 'Probe the loopback ports now; answers the engine list',
    handler: async () => {
      await discovery.scan();
      return { data: engines.info() };
    },
  });
  r.add({
    method: 'post',
    path: '/v1/engines',
    area: 'common',
    tag: 'engines',
    summary: 'Add or replace an upstream engine (api_key omitted keeps the stored key)',
    body: UpsertEngineBody,
    handler: async ({ body }) => await s.upsert(body),
  });
  r.add({
    method: 'post',
    path: '/v1/engines/:name/test',
    area: 'common',
    tag: 'engines',
    params: EngineParams,
    response: EngineTest,
    idempotent: false,
    summary:
      "Test a configured upstream now: fetch its model list (5 s) and name what went wrong (refused, unknown host, timeout, TLS, key, not OpenAI/Anthropic-shaped); the result shows as the engine's last_error",
    handler: async ({ params }) => await s.test(params.name),
  });
  r.add({
    method: 'delete',
    path: '/v1/engines/:name',
    area: 'common',
    tag: 'engines',
    summary: 'Remove an upstream engine, or dismiss a discovered one',
    params: EngineParams,
    handler: async ({ params }) => await s.remove(params.name),
  });
}
