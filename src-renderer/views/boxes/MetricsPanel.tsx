import { useState } from 'react';
import { useBoxMetrics } from '../../api/hooks/boxes.js';
import { formatBytes } from '../../ui/format.js';
import { LineChart } from '../../ui/LineChart.js';
import { ErrorNotice, Loading } from '../../ui/states.js';

const RANGES = ['1h', '6h', '24h', '7d'];

export function MetricsPanel({ boxId }: { boxId: string }) {
  const [range, setRange] = useState('1h');
  const m = useBoxMetrics(boxId, range);
  // A bucket with no samples is null: leave it out rather than plot a zero.
  const pts = (key: 'cpu_used_vcpu' | 'memory_used_bytes' | 'disk_used_bytes') =>
    (m.data?.data ?? []).flatMap((p) => (p[key] === null ? [] : [{ t: new Date(p.at).getTime(), v: p[key] }]));
  return (
    <section className="space-y-3" data-testid="metrics">
      <div className="flex gap-1 text-xs">
        {RANGES.map((r) => (
          <button
            key={r}
            type="button"
            onClick={() => setRange(r)}
            className={`rounded px-2 py-1 ${r === range ? 'bg-ink-700' : 'text-ink-400 hover:text-ink-100'}`}
          >
            {r}
          </button>
        ))}
      </div>
      {m.isPending ? (
        <Loading />
      ) : m.error ? (
        <ErrorNotice error={m.error} />
      ) : (
        <div className="grid gap-4 xl:grid-cols-3">
          <Chart title="CPU (vCPU used)">
            <LineChart series={[{ label: 'cpu', color: '#3fdcaa', points: pts('cpu_used_vcpu') }]} format={(v) => v.toFixed(2)} />
          </Chart>
          <Chart title="Memory">
            <LineChart series={[{ label: 'memory', color: '#60a5fa', points: pts('memory_used_bytes') }]} format={formatBytes} />
          </Chart>
          <Chart title="Disk (host space of the box's own writes; df inside also counts the shared base image)">
            <LineChart series={[{ label: 'disk', color: '#f59e0b', points: pts('disk_used_bytes') }]} format={formatBytes} />
          </Chart>
        </div>
      )}
    </section>
  );
}

function Chart({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <div className="panel p-3">
      <div className="label">{title}</div>
      {children}
    </div>
  );
}
