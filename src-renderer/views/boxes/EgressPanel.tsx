import { useEffect, useMemo, useState } from 'react';
import { apiUrl } from '../../api/client.js';
import type { EgressEntry } from '../../api/hooks/boxes.js';
import { formatBytes, formatTime } from '../../ui/format.js';
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
              <th>Rule</th>
              <th>Status</th>
              <th>Bytes ↑/↓</th>
              <th>Time</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((e) => (
              <tr key={e.id} data-testid="egress-row" data-verdict={e.verdict}>
                <td className="text-ink-400">{formatTime(e.at)}</td>
                <td className="font-mono">{e.method}</td>
                <td className="max-w-md font-mono text-ink-300" title={`${e.host}:${e.port}${e.path ?? ''}`}>
                  <div className="truncate">
                    {e.path === null ? `${e.host}:${e.port} (tunnel)` : `${e.scheme}://${e.host}${[80, 443].includes(e.port) ? '' : `:${e.port}`}${e.path}`}
                  </div>
                  {e.reason && (
                    <div className="font-sans break-words whitespace-normal text-rose-300/90" data-testid="egress-reason">
                      {e.reason}
                    </div>
                  )}
                </td>
                <td className={VERDICT_CLASS[e.verdict] ?? ''}>{e.verdict}</td>
                <td className="font-mono">{e.rule_index ?? '—'}</td>
                <td className="font-mono">{e.status ?? '—'}</td>
                <td className="font-mono">
                  {formatBytes(e.bytes_out)} / {formatBytes(e.bytes_in)}
                </td>
                <td className="font-mono">{e.duration_ms === null ? '—' : `${e.duration_ms} ms`}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
