import { useDeliveries, useRedeliver } from '../../api/hooks/inference.js';
import { Button } from '../../ui/Button.js';
import { formatTime } from '../../ui/format.js';
import { ErrorNotice } from '../../ui/states.js';
import { StatusPill } from '../../ui/StatusPill.js';

/** The service's side of the webhook: every attempt, rounds, next retry; redeliver. */
export function AttemptsPanel({ responseId }: { responseId: string }) {
  const d = useDeliveries(responseId);
  const redeliver = useRedeliver();
  return (
    <section className="panel p-4" data-testid="attempts">
      <div className="mb-2 flex items-center justify-between">
        <h2 className="font-semibold">
          Delivery attempts <span className="font-mono text-xs text-ink-400">{responseId}</span>
        </h2>
        <Button
          small
          busy={redeliver.isPending}
          onClick={() => redeliver.mutate(responseId)}
          data-testid="redeliver"
          disabled={!d.data || d.data.state === 'none'}
        >
          Redeliver
        </Button>
      </div>
      <ErrorNotice error={d.error ?? redeliver.error} compact />
      {d.data && (
        <>
          <div className="mb-2 flex items-center gap-3 text-xs text-ink-400">
            <span data-testid="delivery-state">
              <StatusPill status={d.data.state === 'delivered' ? 'succeeded' : d.data.state} />
            </span>
            <span>rounds {d.data.rounds_done}</span>
            {d.data.next_round_at && <span>next round {formatTime(d.data.next_round_at)}</span>}
          </div>
          {d.data.data.length === 0 ? (
            <p className="text-ink-400">{d.data.state === 'none' ? 'No webhook for this response.' : 'No attempt yet.'}</p>
          ) : (
            <table className="table text-xs">
              <thead>
                <tr>
                  <th>Round</th>
                  <th>Attempt</th>
                  <th>At</th>
                  <th>Status</th>
                  <th className="text-right">Latency</th>
                </tr>
              </thead>
              <tbody>
                {d.data.data.map((a) => (
                  <tr key={`${a.round}-${a.attempt}`} data-testid="attempt" data-status={a.status_code ?? 'error'}>
                    <td className="font-mono">{a.round}</td>
                    <td className="font-mono">{a.attempt}</td>
                    <td className="text-ink-400">{formatTime(a.at)}</td>
                    <td className={`font-mono ${a.status_code && a.status_code < 300 ? 'text-emerald-300' : 'text-rose-300'}`}>{a.status_code ?? a.error}</td>
                    <td className="text-right font-mono text-ink-400">{a.latency_ms} ms</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </section>
  );
}
