import { useState } from 'react';
import { useEgressLog } from '../../api/hooks/boxes.js';
import { Button } from '../../ui/Button.js';
import { formatTime } from '../../ui/format.js';
import { Empty, ErrorNotice, Loading } from '../../ui/states.js';

/** What the box tried to reach through the proxy, and the verdict. */
export function EgressPanel({ boxId }: { boxId: string }) {
  const [offset, setOffset] = useState(0);
  const log = useEgressLog(boxId, offset);
  if (log.isPending) return <Loading />;
  if (log.error) return <ErrorNotice error={log.error} />;
  if (log.data.data.length === 0) return <Empty title="No egress yet">Requests the box makes through the proxy appear here with the policy's verdict.</Empty>;
  return (
    <section className="panel overflow-hidden" data-testid="egress">
      <table className="table text-xs">
        <thead>
          <tr>
            <th>At</th>
            <th>Method</th>
            <th>Host</th>
            <th>Path</th>
            <th>Verdict</th>
            <th>Status</th>
          </tr>
        </thead>
        <tbody>
          {log.data.data.map((e, i) => {
            const verdict = String(e.verdict);
            return (
              <tr key={i}>
                <td className="text-ink-400">{formatTime(e.at)}</td>
                <td className="font-mono">{e.method ?? '—'}</td>
                <td className="font-mono">{e.host}:{e.port}</td>
                <td className="max-w-xs truncate font-mono text-ink-300">{e.path ?? '—'}</td>
                <td className={/allow/.test(verdict) ? 'text-emerald-300' : 'text-rose-300'}>{verdict || '—'}</td>
                <td className="font-mono">{e.status ?? '—'}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <div className="flex justify-end gap-1 px-3 py-2">
        <Button small variant="ghost" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - 50))}>
          Newer
        </Button>
        <Button small variant="ghost" disabled={!log.data.has_more} onClick={() => setOffset(offset + 50)}>
          Older
        </Button>
      </div>
    </section>
  );
}
