import { formatBytes } from '@box/contract/format';
import { Button } from '../../ui/Button.js';
import { ErrorNotice, Loading } from '../../ui/states.js';
import { isRunning, useCatalog, useDiscovery, useModelSourceActions, usePulls, type ModelPull } from './model-sources.js';

function PullProgress({ p, onCancel }: { p: ModelPull; onCancel: () => void }) {
  const pct = p.bytes_total ? Math.round((100 * p.bytes_done) / p.bytes_total) : 0;
  return (
    <div className="mt-1 space-y-1" data-testid="pull-progress">
      <div className="flex items-center justify-between text-xs text-ink-400">
        <span>
          {p.state} · {formatBytes(p.bytes_done, '0')} / {formatBytes(p.bytes_total, '?')}
        </span>
        {isRunning(p) && (
          <button type="button" className="text-rose-300 hover:underline" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
      <div className="h-1.5 rounded bg-ink-950">
        <div className="h-1.5 rounded bg-accent-500" style={{ width: `${p.state === 'completed' ? 100 : pct}%` }} />
      </div>
      {p.error && <p className="text-xs text-rose-300">{p.error}</p>}
    </div>
  );
}

/**
 * The three ways to a real model (issue 10) for a user who only has the built-in test
 * model: pull one from the catalog, run a local server (found automatically), or add an
 * upstream engine (form in the Engines panel below).
 */
export function ModelSourcesPanel() {
  const catalog = useCatalog();
  const pulls = usePulls();
  const discovery = useDiscovery();
  const a = useModelSourceActions();
  const latest = (catalogId: string) => pulls.data?.find((p) => p.catalog_id === catalogId);
  return (
    <section className="panel p-4" id="models" data-testid="model-sources">
      <h2 className="mb-1 font-semibold">Get a model</h2>
      <p className="mb-3 text-xs text-ink-400">
        <code>box/echo</code> is a built-in test model: it repeats your input (offered tools, it calls the first one, then answers with the tool result) and is
        not a language model. For real answers, use one of these three ways.
      </p>
      <h3 className="mb-1 text-sm font-medium">1. Download a small model</h3>
      {catalog.isPending ? <Loading /> : <ErrorNotice error={catalog.error ?? pulls.error} compact />}
      <ul className="mb-4 space-y-2">
        {catalog.data?.map((c) => {
          const p = latest(c.id);
          return (
            <li key={c.id} className="rounded-md border border-ink-700 p-2.5" data-testid="catalog-model">
              <div className="flex items-center justify-between gap-2">
                <div>
                  <span className="font-mono font-semibold">{c.name}</span>{' '}
                  <span className="text-xs text-ink-400">
                    {c.parameters} · {c.quantization} · {formatBytes(c.size_bytes, '?')} · {c.licence}
                  </span>
                  <div className="text-xs text-ink-400">{c.description}</div>
                </div>
                {(!p || ['failed', 'cancelled'].includes(p.state)) && (
                  <Button busy={a.pull.isPending && a.pull.variables === c.id} onClick={() => a.pull.mutate(c.id)} data-testid="pull">
                    Download
                  </Button>
                )}
                {p?.state === 'completed' && <code className="text-xs text-accent-400">{p.model_id}</code>}
              </div>
              {p && p.state !== 'completed' && <PullProgress p={p} onCancel={() => a.cancel.mutate(p.id)} />}
            </li>
          );
        })}
      </ul>
      <h3 className="mb-1 text-sm font-medium">2. Run a local server</h3>
      <p className="mb-2 text-xs text-ink-400">
        Start Ollama, LM Studio, a llama.cpp server or vLLM on this machine: it is found on its usual port within a minute and its models appear here.
      </p>
      {discovery.data && (
        <div className="mb-4 flex flex-wrap items-center gap-3 text-sm">
          <label className="flex items-center gap-2">
            <input
              type="checkbox"
              checked={discovery.data.enabled}
              disabled={!discovery.data.allowed}
              onChange={(e) => a.setDiscovery.mutate(e.target.checked)}
              data-testid="discovery-on"
            />
            Find local engines {!discovery.data.allowed && '(turned off by the service environment)'}
          </label>
          <span className="font-mono text-xs text-ink-400">{discovery.data.probes.map((p) => `${p.name}:${p.port}`).join('  ')}</span>
          <Button busy={a.scan.isPending} disabled={!discovery.data.enabled} onClick={() => a.scan.mutate()} data-testid="scan">
            Look now
          </Button>
          {a.scan.data && (
            <span className="text-xs text-ink-300" data-testid="scan-result" data-found={a.scan.data.data.length}>
              {a.scan.data.data.length === 0
                ? `Nothing found: no engine answers on ${discovery.data.probes.map((p) => `${p.port} (${p.product})`).join(', ')}. Start one and look again.`
                : `Found ${a.scan.data.data.map((e) => e.name).join(', ')}: its models are listed under Engines.`}
            </span>
          )}
        </div>
      )}
      <h3 className="mb-1 text-sm font-medium">3. Connect a hosted API</h3>
      <p className="text-xs text-ink-400">Add any OpenAI- or Anthropic-compatible base URL with its key in the Engines panel.</p>
      <ErrorNotice error={a.pull.error ?? a.cancel.error ?? a.setDiscovery.error ?? a.scan.error} compact />
    </section>
  );
}
