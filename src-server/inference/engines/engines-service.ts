import type { EngineInfo, EngineTest, UpsertEngineBody } from '../../contract/inference.js';
import { Invalid, notFound } from '../../core/domain-errors.js';
import type { EnginesRepo } from '../store/engines-repo.js';
import type { EngineDiscovery } from './discovery.js';
import { upstreamInfo, type EngineRegistry } from './registry.js';
import { probeUpstream } from './upstream/probe.js';

/**
 * Configuring engines (the engines routes): upstreams (any OpenAI- or Anthropic-compatible
 * base URL with its key, sealed at rest by `EnginesRepo`) and engines found on loopback ports
 * by discovery. Serving requests is the registry's job; this only changes what it serves.
 */
export class EnginesService {
  constructor(
    readonly registry: EngineRegistry,
    private repo: EnginesRepo,
    readonly discovery: EngineDiscovery,
  ) {}

  /**
   * Adds or replaces an upstream (`api_key` omitted keeps the stored key). Unless
   * `verify: false`, its model list is fetched first and a broken upstream is refused with
   * the reason (issue 15), not stored to fail silently later.
   */
  async upsert(body: UpsertEngineBody): Promise<EngineInfo> {
    if (body.verify !== false) {
      const apiKey = body.api_key === undefined ? (await this.repo.get(body.name))?.apiKey : body.api_key;
      const probe = await probeUpstream(body.kind, body.base_url, apiKey);
      if (!probe.ok) {
        throw new Invalid(
          `Upstream "${body.name}" did not answer its model list: ${probe.error.message} Nothing was saved (send "verify": false to save it untested).`,
          { param: probe.error.param, code: probe.error.code },
        );
      }
    }
    await this.repo.upsert({ name: body.name, kind: body.kind, baseUrl: body.base_url, apiKey: body.api_key }, Date.now());
    await this.registry.reload();
    this.registry.noteError(body.name, null);
    return { ...upstreamInfo((await this.repo.get(body.name))!), last_error: null };
  }

  /** Fetches a configured upstream's model list now; the outcome becomes its `last_error`. */
  async test(name: string): Promise<EngineTest> {
    const row = await this.repo.get(name);
    if (!row) throw notFound(`No configured upstream named "${name}".`, null, 'name');
    const probe = await probeUpstream(row.kind, row.baseUrl, row.apiKey);
    const error = probe.ok ? null : { code: probe.error.code, message: probe.error.message };
    this.registry.noteError(row.name, error);
    return { name: row.name, ok: probe.ok, models: probe.ok ? probe.models : 0, error: error && { ...error, at: new Date().toISOString() } };
  }

  /** Removes a configured upstream, or dismisses a discovered engine; answers what it was. */
  async remove(name: string): Promise<EngineInfo> {
    const row = await this.repo.get(name);
    if (row && (await this.repo.delete(name))) {
      await this.registry.reload();
      return upstreamInfo(row);
    }
    const found = this.registry.info().find((e) => e.name === name && e.discovered);
    if (found && (await this.discovery.dismiss(name))) return found;
    throw notFound(`No engine named "${name}".`, null, 'name');
  }
}
