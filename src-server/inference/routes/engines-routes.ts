import type { RouteRegistrar } from '../../app-context.js';
import { DiscoveryBody, EngineParams, EngineTest, UpsertEngineBody, type EngineInfo } from '../../contract/inference.js';
import { ApiError, notFound } from '../../http/errors.js';
import type { EngineDiscovery } from '../engines/discovery.js';
import { probeUpstream } from '../engines/upstream/probe.js';
import { upstreamInfo, type EngineRegistry } from '../engines/registry.js';
import type { EnginesRepo } from '../store/engines-repo.js';

/**
 * Upstream engines: any OpenAI- or Anthropic-compatible base URL with its key (sealed at
 * rest); engines found on loopback ports (discovery), which DELETE dismisses.
 */
export function enginesRoutes(r: RouteRegistrar, engines: EngineRegistry, repo: EnginesRepo, discovery: EngineDiscovery) {
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
      discovery.setEnabled(body.enabled);
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
    handler: async ({ body }) => {
      // Test the connection first (issue 15): a broken upstream is refused with the reason, not stored to fail silently later.
      if (body.verify !== false) {
        const apiKey = body.api_key === undefined ? repo.get(body.name)?.apiKey : body.api_key;
        const probe = await probeUpstream(body.kind, body.base_url, apiKey);
        if (!probe.ok) {
          throw new ApiError(
            400,
            'invalid_request_error',
            `Upstream "${body.name}" did not answer its model list: ${probe.error.message} Nothing was saved (send "verify": false to save it untested).`,
            { param: probe.error.param, code: probe.error.code },
          );
        }
      }
      repo.upsert({ name: body.name, kind: body.kind, baseUrl: body.base_url, apiKey: body.api_key }, Date.now());
      engines.reload();
      engines.noteError(body.name, null);
      return { ...upstreamInfo(repo.get(body.name)!), last_error: null };
    },
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
    handler: async ({ params }): Promise<EngineTest> => {
      const row = repo.get(params.name);
      if (!row) throw notFound(`No configured upstream named "${params.name}".`, null, 'name');
      const probe = await probeUpstream(row.kind, row.baseUrl, row.apiKey);
      const error = probe.ok ? null : { code: probe.error.code, message: probe.error.message };
      engines.noteError(row.name, error);
      return { name: row.name, ok: probe.ok, models: probe.ok ? probe.models : 0, error: error && { ...error, at: new Date().toISOString() } };
    },
  });
  r.add({
    method: 'delete',
    path: '/v1/engines/:name',
    area: 'common',
    tag: 'engines',
    summary: 'Remove an upstream engine, or dismiss a discovered one',
    params: EngineParams,
    handler: ({ params }) => {
      const row = repo.get(params.name);
      if (row && repo.delete(params.name)) {
        engines.reload();
        return upstreamInfo(row);
      }
      const found = engines.info().find((e) => e.name === params.name && e.discovered);
      if (found && discovery.dismiss(params.name)) return found;
      throw notFound(`No engine named "${params.name}".`, null, 'name');
    },
  });
}
