import type { Logger } from '../../app-context.js';
import type { DiscoveryOptions } from '../../settings.js';
import type { InferenceSettingsRepo } from '../store/settings-repo.js';
import type { DiscoveredEngine, EngineRegistry } from './registry.js';

/** The usual loopback ports of local OpenAI-compatible servers (issue 10). */
const DEFAULT_PROBES: { name: string; port: number; product: string }[] = [
  { name: 'ollama', port: 11434, product: 'Ollama' },
  { name: 'lmstudio', port: 1234, product: 'LM Studio' },
  { name: 'llamacpp', port: 8080, product: 'llama.cpp server' },
  { name: 'vllm', port: 8000, product: 'vLLM' },
];

const ENABLED_KEY = 'discovery.enabled';
const DISMISSED_KEY = 'discovery.dismissed';

/**
 * Finds local engines without configuration: at start and every minute it asks each probe
 * port for `GET /v1/models` on 127.0.0.1; a server answering an OpenAI-style model list is
 * added as an engine named after the product (ollama, lmstudio...), in memory only, and
 * dropped when it stops answering. Removing one (DELETE /v1/engines/{name}) dismisses it
 * for good; Settings can switch discovery off (persisted), and so can the environment.
 */
export class EngineDiscovery {
  private timer?: NodeJS.Timeout;
  private found = new Map<string, DiscoveredEngine>();
  private running?: Promise<void>;
  readonly probes: { name: string; port: number; product: string }[];

  constructor(
    private registry: EngineRegistry,
    private settings: InferenceSettingsRepo,
    private opts: DiscoveryOptions,
    private log: Logger,
  ) {
    this.probes = opts.probes ?? DEFAULT_PROBES;
  }

  get allowed(): boolean {
    return this.opts.allowed !== false;
  }

  /** The stored setting, read at start (`start`) and kept here as it changes. */
  private on = true;

  get enabled(): boolean {
    return this.allowed && this.on;
  }

  async setEnabled(on: boolean): Promise<void> {
    await this.settings.set(ENABLED_KEY, on);
    this.on = on;
    if (!on) this.publish(new Map());
    else void this.scan();
  }

  async dismiss(name: string): Promise<boolean> {
    if (!this.found.has(name)) return false;
    await this.settings.set(DISMISSED_KEY, [...new Set([...(await this.dismissed()), name])]);
    const next = new Map(this.found);
    next.delete(name);
    this.publish(next);
    return true;
  }

  private async dismissed(): Promise<string[]> {
    return await this.settings.get<string[]>(DISMISSED_KEY, []);
  }

  start(): void {
    void this.settings.get(ENABLED_KEY, true).then(
      (on) => {
        this.on = on;
        return this.scan();
      },
      (e: unknown) => this.log.error('engine discovery: reading its setting', e),
    );
    this.timer = setInterval(() => void this.scan(), this.opts.everyMs ?? 60_000).unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** One round of probes (concurrent, short timeouts); resolves when the engine list is updated. */
  scan(): Promise<void> {
    this.running ??= this.probeAll().finally(() => (this.running = undefined));
    return this.running;
  }

  private async probeAll(): Promise<void> {
    if (!this.enabled) return this.publish(new Map());
    const skip = new Set([...(await this.dismissed()), ...this.registry.configuredNames()]);
    const results = await Promise.all(this.probes.filter((p) => !skip.has(p.name)).map((p) => this.probe(p)));
    const next = new Map<string, DiscoveredEngine>();
    for (const r of results) if (r) next.set(r.name, r);
    if (this.enabled) this.publish(next);
  }

  private async probe(p: { name: string; port: number; product: string }): Promise<DiscoveredEngine | null> {
    const baseUrl = `http://127.0.0.1:${p.port}/v1`;
    try {
      const res = await fetch(`${baseUrl}/models`, { signal: AbortSignal.timeout(this.opts.probeTimeoutMs ?? 1500) });
      if (!res.ok) return null;
      const body = (await res.json()) as { data?: unknown };
      if (!Array.isArray(body.data)) return null;
      return { name: p.name, product: p.product, baseUrl };
    } catch {
      return null;
    }
  }

  private publish(next: Map<string, DiscoveredEngine>): void {
    const before = [...this.found.keys()].sort().join();
    this.found = next;
    if ([...next.keys()].sort().join() === before) return;
    this.log.info(`inference: local engines found: ${[...next.values()].map((e) => `${e.name} (${e.baseUrl})`).join(', ') || 'none'}`);
    this.registry.setDiscovered([...next.values()]);
  }
}
