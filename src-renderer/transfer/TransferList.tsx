import { formatBytes } from '../ui/format.js';
import type { Transfer } from './use-transfers.js';

export function TransferList({ items, onCancel, onClear }: { items: Transfer[]; onCancel: (id: string) => void; onClear: () => void }) {
  if (items.length === 0) return null;
  const finished = items.some((t) => t.status !== 'queued' && t.status !== 'uploading');
  return (
    <section className="panel mt-4 p-3" data-testid="transfers" aria-label="Uploads">
      <div className="mb-2 flex items-center justify-between">
        <h3 className="text-xs font-semibold uppercase tracking-wider text-ink-400">Uploads</h3>
        {finished && (
          <button type="button" className="text-xs text-ink-400 hover:text-ink-100" onClick={onClear}>
            Clear finished
          </button>
        )}
      </div>
      <ul className="space-y-2">
        {items.map((t) => {
          const pct = t.total > 0 ? Math.round((t.loaded / t.total) * 100) : t.status === 'done' ? 100 : 0;
          const active = t.status === 'queued' || t.status === 'uploading';
          return (
            <li key={t.id} data-testid="transfer" data-status={t.status} data-name={t.name}>
              <div className="flex items-center justify-between gap-3 text-xs">
                <span className="truncate font-mono" title={t.target}>
                  {t.name}
                </span>
                <span className="flex shrink-0 items-center gap-2 text-ink-400">
                  <span data-testid="transfer-progress" data-percent={pct}>
                    {t.status === 'failed' ? (
                      <span className="text-rose-300">{t.error}</span>
                    ) : t.status === 'cancelled' ? (
                      'cancelled'
                    ) : (
                      `${formatBytes(t.loaded)} / ${formatBytes(t.total)} · ${pct}%`
                    )}
                  </span>
                  {active && (
                    <button
                      type="button"
                      className="rounded px-1.5 py-0.5 text-ink-300 hover:bg-ink-700"
                      onClick={() => onCancel(t.id)}
                      data-testid="transfer-cancel"
                      aria-label={`Cancel ${t.name}`}
                    >
                      Cancel
                    </button>
                  )}
                </span>
              </div>
              <div className="mt-1 h-1 overflow-hidden rounded bg-ink-800">
                <div
                  className={`h-full transition-[width] ${t.status === 'failed' ? 'bg-rose-500' : t.status === 'done' ? 'bg-accent-500' : t.status === 'cancelled' ? 'bg-ink-600' : 'bg-sky-400'}`}
                  style={{ width: `${pct}%` }}
                />
              </div>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
