import { useState } from 'react';
import type { CodeResult } from '@box/contract/code';

type ChartData = { type: string; title?: string; elements?: ChartElement[] };
type ChartElement = ChartData & { label?: string; points?: unknown[][]; value?: unknown; group?: string; angle?: number };

/** One line per series, bar or slice of a chart's data: what a reader checks against the picture. */
function chartRows(c: ChartData, prefix = ''): string[] {
  const els = c.elements ?? [];
  if (c.type === 'superchart') return els.flatMap((e, i) => chartRows(e, `${e.title || `chart ${i + 1}`}: `));
  if (c.type === 'bar') return els.map((e) => `${prefix}${e.group ? `${e.group} · ` : ''}${e.label} = ${String(e.value)}`);
  if (c.type === 'pie') {
    const total = els.reduce((s, e) => s + (e.angle ?? 0), 0) || 1;
    return els.map((e) => `${prefix}${e.label}: ${(((e.angle ?? 0) / total) * 100).toFixed(1)} %`);
  }
  return els.map((e) => {
    const pts = e.points ?? [];
    const shown = pts.slice(0, 4).map((p) => `(${p.map(String).join(', ')})`);
    return `${prefix}${e.label}: ${pts.length} points ${shown.join(' ')}${pts.length > 4 ? ' …' : ''}`;
  });
}

/** A chart's data under its picture, folded: the kind, its title, and its series, bars or slices. */
function ChartDataView({ chart }: { chart: ChartData }) {
  const rows = chartRows(chart);
  return (
    <details className="mt-1 text-xs text-ink-300" data-testid="code-chart-data">
      <summary className="cursor-pointer select-none">
        Data: {chart.type}
        {chart.title ? ` “${chart.title}”` : ''} · {rows.length} {chart.type === 'bar' ? 'bars' : chart.type === 'pie' ? 'slices' : 'series'}
      </summary>
      <ul className="mt-1 space-y-0.5 font-mono text-ink-100">
        {rows.slice(0, 50).map((row, i) => (
          <li key={i}>{row}</li>
        ))}
        {rows.length > 50 && <li>… {rows.length - 50} more (the API result has them all)</li>}
      </ul>
    </details>
  );
}

/** The richest form a result has: a picture (with a chart's data), a table (HTML in a sandbox without scripts), else text. */
export function ResultView({ r }: { r: CodeResult }) {
  const [height, setHeight] = useState(120);
  const chart = r['application/vnd.box.chart+json'] as ChartData | undefined;
  if (r['image/png'])
    return (
      <div>
        <img alt="chart" data-testid="code-image" className="max-w-full rounded bg-white" src={`data:image/png;base64,${r['image/png']}`} />
        {chart && <ChartDataView chart={chart} />}
      </div>
    );
  if (r['image/jpeg']) return <img alt="image" className="max-w-full rounded" src={`data:image/jpeg;base64,${r['image/jpeg']}`} />;
  if (r['image/svg+xml'])
    return <img alt="svg" className="max-w-full rounded bg-white" src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(r['image/svg+xml'])}`} />;
  if (r['text/html']) {
    return (
      <iframe
        title="html result"
        data-testid="code-html"
        sandbox="allow-same-origin"
        className="w-full rounded bg-white"
        style={{ height }}
        srcDoc={`<style>body{font:12px system-ui;margin:4px}table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:2px 6px}</style>${r['text/html']}`}
        onLoad={(e) => setHeight(Math.min(600, (e.currentTarget.contentDocument?.body.scrollHeight ?? 100) + 16))}
      />
    );
  }
  return <pre className="whitespace-pre-wrap font-mono text-xs text-ink-100">{r['text/plain'] ?? JSON.stringify(r['application/json'])}</pre>;
}
