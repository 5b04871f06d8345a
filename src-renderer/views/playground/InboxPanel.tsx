import { useState } from 'react';
import { useInbox, useInboxDeliveries, useInboxes, useSetInboxStatus, type InboxDelivery } from '../../api/hooks/inbox.js';
import { formatTime } from '../../ui/format.js';
import { ErrorNotice, Loading } from '../../ui/states.js';

const STATUSES = [200, 204, 410, 500, 503];

/**
 * The built-in receiver: its URL, the status it answers (to test retries), what arrived.
 * It shows the user's own inbox (the same one every visit); the others of the organization
 * (earlier ones, other users') are a choice away, with their deliveries.
 */
export function InboxPanel() {
  const mine = useInbox();
  const all = useInboxes();
  const [chosen, setChosen] = useState<string | null>(null);
  const shown = chosen ? (all.data?.find((i) => i.inbox_id === chosen) ?? null) : null;
  const inbox = shown ? { ...mine, data: shown, isPending: false } : mine;
  const deliveries = useInboxDeliveries(inbox.data?.inbox_id);
  const setStatus = useSetInboxStatus();
  return (
    <section className="panel p-4" data-testid="inbox">
      <div className="mb-2 flex items-center justify-between gap-3">
        <h2 className="font-semibold">Webhook inbox</h2>
        {inbox.data && (
          <label className="flex items-center gap-2 text-xs text-ink-400">
            answers
            <select
              className="input w-auto py-0.5 font-mono text-xs"
              value={inbox.data.respond_status}
              data-testid="inbox-status"
              onChange={(e) => setStatus.mutate({ id: inbox.data.inbox_id, status: Number(e.target.value) })}
            >
              {STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </label>
        )}
      </div>
      {all.data && all.data.length > 1 && (
        <label className="mb-2 flex items-center gap-2 text-xs text-ink-400">
          inbox
          <select
            className="input w-auto min-w-0 flex-1 py-0.5 font-mono text-xs"
            value={inbox.data?.inbox_id ?? ''}
            data-testid="inbox-select"
            onChange={(e) => setChosen(e.target.value === mine.data?.inbox_id ? null : e.target.value)}
          >
            {all.data.map((i) => (
              <option key={i.inbox_id} value={i.inbox_id}>
                {i.inbox_id === mine.data?.inbox_id ? 'yours' : i.inbox_id.slice(0, 14)} · {i.delivery_count} deliver{i.delivery_count === 1 ? 'y' : 'ies'} ·
                since {formatTime(i.created_at)}
              </option>
            ))}
          </select>
        </label>
      )}
      {inbox.isPending && <Loading />}
      <ErrorNotice error={inbox.error ?? setStatus.error ?? deliveries.error} />
      {inbox.data && (
        <>
          <code className="mb-3 block truncate rounded bg-ink-950 px-2 py-1 text-[11px] text-ink-300" data-testid="inbox-url" title={inbox.data.url}>
            POST {inbox.data.url}
          </code>
          {deliveries.data?.data.length ? (
            <ul className="max-h-[28rem] space-y-1.5 overflow-auto" data-testid="inbox-deliveries">
              {deliveries.data.data.map((d) => (
                <DeliveryItem key={d.delivery_id} d={d} />
              ))}
            </ul>
          ) : (
            <p className="py-4 text-center text-ink-400">Nothing received yet. Requests sent with the webhook on are delivered here.</p>
          )}
        </>
      )}
    </section>
  );
}

function DeliveryItem({ d }: { d: InboxDelivery }) {
  const [open, setOpen] = useState(false);
  let pretty = d.body;
  let responseId = '';
  try {
    const parsed = JSON.parse(d.body) as { id?: string; status?: string };
    pretty = JSON.stringify(parsed, null, 2);
    responseId = `${parsed.id ?? ''} ${parsed.status ?? ''}`;
  } catch {
    // not JSON: show as received
  }
  const ok = d.answered_status < 300;
  return (
    <li className="rounded-md border border-ink-700 bg-ink-900" data-testid="inbox-delivery">
      <button
        type="button"
        className="flex w-full items-center justify-between gap-2 px-2.5 py-1.5 text-left text-xs"
        onClick={() => setOpen(!open)}
        aria-expanded={open}
      >
        <span className="flex min-w-0 items-center gap-2">
          <span className={`rounded px-1.5 font-mono ${ok ? 'bg-emerald-400/15 text-emerald-300' : 'bg-rose-400/15 text-rose-300'}`}>{d.answered_status}</span>
          <span className="truncate font-mono text-ink-300" data-testid="inbox-delivery-id">
            {responseId || `${d.body_bytes} bytes`}
          </span>
        </span>
        <span className="shrink-0 text-ink-400">{formatTime(d.received_at)}</span>
      </button>
      {open && (
        <div className="space-y-2 border-t border-ink-700 px-2.5 py-2 text-[11px]">
          <table className="w-full font-mono">
            <tbody>
              {Object.entries(d.headers).map(([k, v]) => (
                <tr key={k}>
                  <td className="pr-3 align-top whitespace-nowrap text-ink-400">{k}</td>
                  <td className="break-all text-ink-300">{v}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <pre className="max-h-64 overflow-auto rounded bg-ink-950 p-2 font-mono break-all whitespace-pre-wrap text-ink-300">{pretty}</pre>
        </div>
      )}
    </li>
  );
}
