import { useEffect, useMemo, useState } from 'react';
import { apiUrl } from '../../api/client.js';
import type { EgressEntry } from '../../api/hooks/boxes.js';
import { formatBytes, formatTime } from '../../ui/format.js';
import { PolicyName } from '../../ui/names.js';
import { Empty } from '../../ui/states.js';

type Row = EgressEntry & { id: number };
/** Entries the live view keeps (the service keeps its own bounded log per box). */
const KEEP = 500;
const VERDICT_CLASS: Record<string, string> = { allow: 'text-emerald-300', deny: 'text-rose-300', respond: 'text-amber-300' };

/**
 * The box's egress log, live: a server-sent stream (`?stream=1`) with the newest entries as
 * a backlog, then each request as the proxy decides it (https ones with method and path when
 * intercepted). Filtering by verdict or host reconnects with the filter applied server-side.
 */
export function EgressPanel({ boxId }: { boxId: string }) {
  const [verdict, setVerdict] = useState('');
  const [host, setHost] = useState('');
  const [hostFilter, setHostFilter] = useState('');
  const [rows, setRows] = useState<Row[]>([]);
  const [state, setState] = useState<'connecting' | 'live' | 'reconnecting'>('connecting');
  const [openId, setOpenId] = useState<number | null>(null);

  useEffect(() => {
    const t = setTimeout(() => setHostFilter(host.trim().toLowerCase()), 300);
    return () => clearTimeout(t);
  }, [host]);

  useEffect(() => {
    setRows([]);
    setState('connecting');
    const es = new EventSource(apiUrl(`/v1/boxes/${boxId}/egress-log`, { stream: 1, limit: 100, verdict, host: hostFilter }));
    es.onopen = () => setState('live');
    es.onerror = () => setState('reconnecting');
    es.addEventListener('entry', (ev) => {
      const e = JSON.parse((ev as MessageEvent<string>).data) as Row;
      // A tunnel's entry comes again when it closes (same id): replace it in place.
      setRows((cur) => (cur.some((r) => r.id === e.id) ? cur.map((r) => (r.id === e.id ? e : r)) : [e, ...cur].slice(0, KEEP)));
    });
    return () => es.close();
  }, [boxId, verdict, hostFilter]);

  const hosts = useMemo(() => [...new Set(rows.map((r) => r.host))].sort(), [rows]);

  return (
    <section className="panel overflow-hidden" data-testid="egress">
      <div className="flex flex-wrap items-center gap-2 border-b border-ink-800 px-3 py-2 text-xs">
        <label className="flex items-center gap-1">
          Verdict
          <select className="input py-1 text-xs" value={verdict} onChange={(e) => setVerdict(e.target.value)} data-testid="egress-verdict">
            <option value="">all</option>
            <option value="allow">allow</option>
            <option value="deny">deny</option>
            <option value="respond">respond</option>
          </select>
        </label>
        <label className="flex items-center gap-1">
          Host
          <input
            className="input py-1 text-xs"
            list="egress-hosts"
            value={host}
            placeholder="any host"
            onChange={(e) => setHost(e.target.value)}
            data-testid="egress-host"
          />
          <datalist id="egress-hosts">
            {hosts.map((h) => (
              <option key={h} value={h} />
            ))}
          </datalist>
        </label>
        <span className="flex-1" />
        <span className={state === 'live' ? 'text-emerald-300' : 'text-ink-400'} data-testid="egress-state">
          {state === 'live' ? '● live' : state}
        </span>
      </div>
      {rows.length === 0 ? (
        <Empty title={verdict || hostFilter ? 'Nothing matches the filter' : 'No egress yet'}>
          Requests the box makes through its egress proxy appear here as they happen, with the policy's verdict.
        </Empty>
      ) : (
        <table className="table text-xs">
          <thead>
            <tr>
              <th>At</th>
              <th>Method</th>
              <th>URL</th>
              <th>Verdict</th>
              <th className="hidden lg:table-cell">Rule</th>
              <th>Status</th>
              <th className="hidden lg:table-cell">Bytes ↑/↓</th>
              <th className="hidden md:table-cell">Time</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((e) => (
              <EgressRow key={e.id} e={e} open={openId === e.id} onToggle={() => setOpenId(openId === e.id ? null : e.id)} />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

const urlOf = (e: Row) =>
  e.path === null ? `${e.host}:${e.port} (tunnel)` : `${e.scheme}://${e.host}${[80, 443].includes(e.port) ? '' : `:${e.port}`}${e.path}`;

/** One request: a row that opens (click, Enter or Space) to its details below it. */
function EgressRow({ e, open, onToggle }: { e: Row; open: boolean; onToggle: () => void }) {
  const injected = e.injected_headers ?? [];
  return (
    <>
      <tr
        data-testid="egress-row"
        data-verdict={e.verdict}
        aria-expanded={open}
        tabIndex={0}
        className="cursor-pointer"
        onClick={onToggle}
        onKeyDown={(ev) => {
          if (ev.key === 'Enter' || ev.key === ' ') {
            ev.preventDefault();
            onToggle();
          }
        }}
      >
        <td className="whitespace-nowrap text-ink-400">
          <span aria-hidden className="mr-1 inline-block w-2 text-ink-400">
            {open ? '▾' : '▸'}
          </span>
          {formatTime(e.at)}
        </td>
        <td className="font-mono">{e.method}</td>
        <td className="max-w-md font-mono text-ink-300" title={`${e.host}:${e.port}${e.path ?? ''}`}>
          <div className="truncate">{urlOf(e)}</div>
          {(injected.length > 0 || e.upgraded_to_https) && (
            <div className="flex flex-wrap gap-1 font-sans" data-testid="egress-badges">
              {injected.length > 0 && (
                <span className="rounded bg-amber-400/15 px-1.5 text-[11px] text-amber-200" data-testid="egress-injected-badge">
                  {injected.some((h) => h.secret) ? 'secret header injected' : 'header set'}
                </span>
              )}
              {e.upgraded_to_https && (
                <span className="rounded bg-sky-400/15 px-1.5 text-[11px] text-sky-200" data-testid="egress-upgraded-badge">
                  upgraded to HTTPS
                </span>
              )}
            </div>
          )}
          {e.reason && (
            <div className="font-sans break-words whitespace-normal text-rose-300" data-testid="egress-reason">
              {e.reason}
            </div>
          )}
        </td>
        <td className={VERDICT_CLASS[e.verdict] ?? ''}>{e.verdict}</td>
        <td className="hidden font-mono lg:table-cell">{e.rule_index ?? '—'}</td>
        <td className="font-mono">{e.status ?? '—'}</td>
        <td className="hidden font-mono whitespace-nowrap lg:table-cell">
          {formatBytes(e.bytes_out)} / {formatBytes(e.bytes_in)}
        </td>
        <td className="hidden font-mono whitespace-nowrap md:table-cell">{e.duration_ms === null ? '—' : `${e.duration_ms} ms`}</td>
      </tr>
      {open && (
        <tr data-testid="egress-details">
          <td colSpan={8} className="bg-ink-900">
            <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 py-1 text-xs">
              <dt className="text-ink-400">URL</dt>
              <dd className="font-mono break-all">{urlOf(e)}</dd>
              <dt className="text-ink-400">Sent to</dt>
              <dd className="font-mono" data-testid="egress-sent-to">
                {e.upgraded_to_https ? `https://${e.host}:443` : e.path === null ? `${e.host}:${e.port} (tunnel)` : `${e.scheme}://${e.host}:${e.port}`}
              </dd>
              {e.upgraded_to_https && (
                <>
                  <dt className="text-ink-400">Upgrade</dt>
                  <dd data-testid="egress-upgrade">
                    The box asked for <span className="font-mono">http://{e.host}</span>; the policy puts headers into this request, so the proxy sent it on
                    over HTTPS (port 443) and the header never crossed the network in clear text.
                  </dd>
                </>
              )}
              <dt className="text-ink-400">Verdict</dt>
              <dd>
                <span className={VERDICT_CLASS[e.verdict] ?? ''}>{e.verdict}</span>
                {e.policy_id ? (
                  <>
                    {' '}
                    by <PolicyName id={e.policy_id} />
                    {e.rule_index !== null && `, rule ${e.rule_index}`}
                  </>
                ) : (
                  ' (no policy: everything allowed)'
                )}
              </dd>
              <dt className="text-ink-400">Injected headers</dt>
              <dd data-testid="egress-injected">
                {injected.length === 0
                  ? 'none'
                  : injected.map((h) => (
                      <div key={h.name}>
                        <span className="font-mono">{h.name}</span>
                        {h.secret ? (
                          <>
                            {' '}
                            from secret <span className="font-mono">{h.secret}</span>, set on the host (the value never enters the box and is not logged)
                          </>
                        ) : (
                          ' set by the policy'
                        )}
                      </div>
                    ))}
              </dd>
              <dt className="text-ink-400">Status</dt>
              <dd className="font-mono">{e.status ?? '—'}</dd>
              <dt className="text-ink-400">Bytes ↑/↓</dt>
              <dd className="font-mono">
                {formatBytes(e.bytes_out)} / {formatBytes(e.bytes_in)}
              </dd>
              <dt className="text-ink-400">Time</dt>
              <dd className="font-mono">{e.duration_ms === null ? 'open' : `${e.duration_ms} ms`}</dd>
              {e.reason && (
                <>
                  <dt className="text-ink-400">Why</dt>
                  <dd className="break-words">{e.reason}</dd>
                </>
              )}
            </dl>
          </td>
        </tr>
      )}
    </>
  );
}
