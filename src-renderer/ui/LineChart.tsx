/**
 * A small SVG line chart (no chart library): one or more series over time, min/max
 * labels, and a hover readout of the nearest point.
 */
import { useState } from 'react';

interface Series {
  label: string;
  color: string;
  points: Array<{ t: number; v: number }>;
}

/** Day-sized data (e.g. spend per day) reads as dates, not as "12:00:00 AM"; short spans as hh:mm. */
function axisLabel(t: number, spanMs: number): string {
  const d = new Date(t);
  const midnight = d.getHours() === 0 && d.getMinutes() === 0 && d.getSeconds() === 0;
  if (spanMs >= 36 * 3600_000 || (spanMs === 0 && midnight)) return d.toLocaleDateString(undefined, { month: 'short', day: 'numeric' });
  return d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
}

const W = 600;
const H = 160;
const PAD = { l: 52, r: 10, t: 10, b: 8 };

export function LineChart({
  series,
  format = (v) => v.toFixed(2),
  testId,
  empty = 'No data yet.',
}: {
  series: Series[];
  format?: (v: number) => string;
  testId?: string;
  empty?: string;
}) {
  const [hover, setHover] = useState<number | null>(null);
  const all = series.flatMap((s) => s.points);
  if (all.length === 0) {
    return (
      <div data-testid={testId} className="grid h-40 place-items-center rounded-md border border-dashed border-ink-700 text-ink-400">
        {empty}
      </div>
    );
  }
  const t0 = Math.min(...all.map((p) => p.t));
  const t1 = Math.max(...all.map((p) => p.t));
  const vMax = Math.max(...all.map((p) => p.v));
  const vMin = Math.min(0, ...all.map((p) => p.v));
  const x = (t: number) => PAD.l + ((t - t0) / Math.max(1, t1 - t0)) * (W - PAD.l - PAD.r);
  const y = (v: number) => H - PAD.b - ((v - vMin) / Math.max(1e-12, vMax - vMin)) * (H - PAD.t - PAD.b);
  const hoverT = hover === null ? null : t0 + ((hover - PAD.l) / (W - PAD.l - PAD.r)) * (t1 - t0);
  return (
    <div data-testid={testId} className="relative">
      <svg
        viewBox={`0 0 ${W} ${H}`}
        className="h-40 w-full"
        preserveAspectRatio="none"
        onMouseMove={(e) => {
          const r = e.currentTarget.getBoundingClientRect();
          setHover(((e.clientX - r.left) / r.width) * W);
        }}
        onMouseLeave={() => setHover(null)}
        role="img"
        aria-label={series.map((s) => s.label).join(', ')}
      >
        {[0, 0.5, 1].map((f) => (
          <line
            key={f}
            x1={PAD.l}
            x2={W - PAD.r}
            y1={y(vMin + f * (vMax - vMin))}
            y2={y(vMin + f * (vMax - vMin))}
            stroke="#222a3d"
            strokeDasharray="3 3"
            vectorEffect="non-scaling-stroke"
          />
        ))}
        {series.map((s) => (
          <g key={s.label}>
            <polyline
              fill="none"
              stroke={s.color}
              strokeWidth="1.6"
              vectorEffect="non-scaling-stroke"
              points={s.points.map((p) => `${x(p.t)},${y(p.v)}`).join(' ')}
            />
            {s.points.length <= 3 &&
              s.points.map((p) => (
                <line
                  key={p.t}
                  x1={x(p.t)}
                  x2={x(p.t) + 0.01}
                  y1={y(p.v)}
                  y2={y(p.v)}
                  stroke={s.color}
                  strokeWidth="6"
                  strokeLinecap="round"
                  vectorEffect="non-scaling-stroke"
                />
              ))}
          </g>
        ))}
        {hover !== null && hover >= PAD.l && <line x1={hover} x2={hover} y1={PAD.t} y2={H - PAD.b} stroke="#7d89a6" strokeWidth="0.6" />}
      </svg>
      {[0, 0.5, 1].map((f) => (
        <span
          key={f}
          className="pointer-events-none absolute left-0 w-[8.2%] -translate-y-1/2 pr-1 text-right font-mono whitespace-nowrap text-[9px] text-ink-400"
          style={{ top: `${(y(vMin + f * (vMax - vMin)) / H) * 160}px` }}
        >
          {format(vMin + f * (vMax - vMin))}
        </span>
      ))}
      <div className="flex justify-between pl-[8.7%] font-mono text-[9px] text-ink-400">
        <span>{axisLabel(t0, t1 - t0)}</span>
        {t1 !== t0 && <span>{axisLabel(t1, t1 - t0)}</span>}
      </div>
      <div className="mt-1 flex flex-wrap gap-3 text-[11px] text-ink-400">
        {series.map((s) => {
          const near =
            hoverT === null ? s.points[s.points.length - 1] : s.points.reduce((a, b) => (Math.abs(b.t - hoverT) < Math.abs(a.t - hoverT) ? b : a), s.points[0]);
          return (
            <span key={s.label} className="flex items-center gap-1">
              <span className="h-2 w-2 rounded-sm" style={{ background: s.color }} />
              {s.label}: <span className="font-mono text-ink-100">{near ? format(near.v) : '—'}</span>
            </span>
          );
        })}
      </div>
    </div>
  );
}
