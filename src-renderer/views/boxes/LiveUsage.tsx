import { useBoxMetrics } from '../../api/hooks/boxes.js';
import { formatBytes } from '../../ui/format.js';

/** The latest sampled CPU and memory of a running box, with a small memory sparkline. */
export function LiveUsage({ boxId }: { boxId: string }) {
  const m = useBoxMetrics(boxId, '1h');
  const pts = (m.data?.data ?? []).filter((p) => p.memory_used_bytes !== null);
  const last = [...(m.data?.data ?? [])].reverse();
  const cpu = last.find((p) => p.cpu_used_vcpu !== null)?.cpu_used_vcpu;
  const mem = last.find((p) => p.memory_used_bytes !== null)?.memory_used_bytes;
  if (m.error || (cpu === undefined && mem === undefined)) return <span className="text-ink-600">—</span>;
  const max = Math.max(...pts.map((p) => p.memory_used_bytes!), 1);
  const line = pts
    .slice(-30)
    .map((p, i, a) => `${(i / Math.max(1, a.length - 1)) * 60},${14 - (p.memory_used_bytes! / max) * 12}`)
    .join(' ');
  return (
    <span className="inline-flex items-center gap-2 font-mono text-xs whitespace-nowrap text-ink-300" data-testid="live-usage">
      {pts.length >= 2 && (
        <svg width="60" height="16" aria-hidden className="shrink-0 text-sky-400">
          <polyline points={line} fill="none" stroke="currentColor" strokeWidth="1.2" />
        </svg>
      )}
      {cpu !== undefined && cpu !== null && <span>{cpu.toFixed(2)} vCPU</span>}
      {mem !== undefined && mem !== null && <span>{formatBytes(mem)}</span>}
    </span>
  );
}
