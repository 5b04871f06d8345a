import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, errorMessage } from '../api/client.js';

/** What `GET /ui/contexts` answers (src-server/platform/serving/context-proxy.ts): names and URLs, never a key. */
interface Contexts {
  enabled: boolean;
  selected: string;
  cli_current: string;
  file: string;
  contexts: Array<{ name: string; url: string; tls_fingerprint: string | null }>;
}

/**
 * The service this app talks to: the local one, or any context saved with
 * `npx box context add` (the CLI's store). The local service forwards the app's requests to
 * the chosen one with its stored key over the pinned certificate; switching checks it first,
 * and a refusal (another certificate, a key it no longer takes) leaves the app where it was.
 */
export function ServiceSwitcher() {
  const q = useQuery({ queryKey: ['ui-contexts'], queryFn: () => api<Contexts>('/ui/contexts'), staleTime: 10_000 });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const data = q.data;
  if (!data?.enabled) return null;
  const selected = data.contexts.find((c) => c.name === data.selected);
  const choose = async (name: string) => {
    setBusy(true);
    setError(null);
    try {
      await api('/ui/contexts/select', { json: { name } });
      // every view, stream and socket starts again against the chosen service
      window.location.hash = '#/boxes';
      window.location.reload();
    } catch (e) {
      setError(errorMessage(e));
      setBusy(false);
    }
  };
  return (
    <div className="px-2 pb-3 lg:px-3" data-testid="service-switcher">
      <label htmlFor="service-switcher" className="hidden text-[11px] text-ink-400 lg:block">
        Service
      </label>
      <select
        id="service-switcher"
        aria-label="Service"
        value={data.selected}
        disabled={busy}
        title={
          data.contexts.length === 1
            ? 'Add another service with `npx box context add NAME URL`'
            : selected
              ? `${selected.name}: ${selected.url}${selected.tls_fingerprint ? ` (certificate ${selected.tls_fingerprint.slice(0, 23)}…)` : ''}`
              : undefined
        }
        onChange={(e) => void choose(e.target.value)}
        className="mt-0.5 w-full truncate rounded-md border border-ink-800 bg-ink-900 px-1 py-1 text-[11px] text-ink-100 lg:px-2"
      >
        {data.contexts.map((c) => (
          <option key={c.name} value={c.name}>
            {c.name === 'local' ? 'local (this machine)' : `${c.name} · ${new URL(c.url).host}`}
          </option>
        ))}
      </select>
      {data.selected !== 'local' && (
        <div className="mt-1 hidden break-all text-[10px] text-ink-400 lg:block" data-testid="service-remote">
          remote: {selected?.url}
        </div>
      )}
      {busy && <div className="mt-1 text-[11px] text-ink-400">Checking the service…</div>}
      {error && (
        <div
          role="alert"
          data-testid="service-switch-error"
          className="mt-1 break-words rounded-md border border-rose-700/60 bg-rose-950/40 px-2 py-1.5 text-[11px] text-rose-200"
        >
          {error}
        </div>
      )}
    </div>
  );
}
