import { useEffect, useState } from 'react';
import { check, useConnection } from '../api/connection.js';
import { errorMessage } from '../api/client.js';
import { desktop } from '../desktop.js';

/**
 * Shown while the service does not answer (issue 38): what happened, how to start it again,
 * and that the page comes back by itself. In the desktop app the shell can start it.
 */
export function ServiceBanner() {
  const conn = useConnection();
  const [, tick] = useState(0);
  const [starting, setStarting] = useState(false);
  const [startError, setStartError] = useState<string | null>(null);
  useEffect(() => {
    if (conn.status === 'up') return;
    const t = setInterval(() => tick((n) => n + 1), 1000);
    return () => clearInterval(t);
  }, [conn.status]);
  if (conn.status === 'up') return null;
  const bridge = desktop();
  const inSecs = conn.nextCheckAt ? Math.max(0, Math.ceil((conn.nextCheckAt - Date.now()) / 1000)) : 0;
  const start = () => {
    if (!bridge) return;
    setStarting(true);
    setStartError(null);
    bridge
      .invoke('service:start', undefined)
      .then(() => check())
      .catch((e: unknown) => setStartError(errorMessage(e)))
      .finally(() => setStarting(false));
  };
  return (
    <div
      role="alert"
      data-testid="service-banner"
      className="sticky top-0 z-40 mb-4 flex flex-wrap items-center gap-x-3 gap-y-1 rounded-md border border-amber-600/60 bg-amber-950/90 px-3 py-2 text-amber-100 shadow-lg shadow-black/20"
    >
      <span className="h-2 w-2 shrink-0 rounded-full bg-amber-400" aria-hidden />
      <strong className="font-semibold">Service stopped</strong>
      <span className="text-amber-200/90">
        {bridge ? (
          'Start it again to use your boxes.'
        ) : (
          <>
            Start it with <code className="rounded bg-black/30 px-1 font-mono">npm start</code> (headless:{' '}
            <code className="rounded bg-black/30 px-1 font-mono">npm run serve</code>).
          </>
        )}{' '}
        States shown are unknown until it is back; this page reconnects by itself.
      </span>
      <span className="ml-auto flex items-center gap-2 text-xs text-amber-200/80">
        <span data-testid="service-retry-in">{inSecs > 0 ? `Checking again in ${inSecs}s` : 'Checking…'}</span>
        {bridge && (
          <button
            type="button"
            data-testid="service-start"
            disabled={starting}
            onClick={start}
            className="rounded-md bg-amber-400 px-2 py-1 font-semibold text-ink-950 hover:bg-amber-300 disabled:opacity-50"
          >
            {starting ? 'Starting…' : 'Start service'}
          </button>
        )}
        <button
          type="button"
          data-testid="service-retry"
          onClick={() => void check()}
          className="rounded-md border border-amber-600/60 px-2 py-1 hover:bg-amber-900"
        >
          Retry now
        </button>
      </span>
      {startError && <span className="w-full text-xs text-rose-200">{startError}</span>}
    </div>
  );
}
