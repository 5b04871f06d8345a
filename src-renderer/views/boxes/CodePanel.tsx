import { useEffect, useRef, useState } from 'react';
import type { Box } from '../../../src-server/contract/boxes.js';
import type { CodeError, CodeEvent, CodeExecution, CodeLanguage, CodeResult } from '../../../src-server/contract/code.js';
import { apiFetch, call, errorMessage } from '../../api/client.js';
import { readNdjson } from '../../api/exec-stream.js';
import { Button } from '../../ui/Button.js';

type Cell = {
  id: number;
  language: CodeLanguage;
  code: string;
  stdout: string;
  stderr: string;
  results: CodeResult[];
  error: CodeError | null;
  count: number | null;
  running: boolean;
  failure?: string;
  contextId?: string;
  ms?: number;
};

const LANGS: CodeLanguage[] = ['python', 'javascript', 'typescript', 'bash'];
const KEEP = 50;
const storeKey = (boxId: string) => `box-code-history:${boxId}`;

/** Runs one cell with `?stream=1`: output shows as it comes, the end event settles the cell. */
async function runStreaming(boxId: string, body: { code: string; language: CodeLanguage }, on: (e: CodeEvent | { type: 'failed'; message: string }) => void) {
  const res = await apiFetch(`/v1/boxes/${boxId}/code/run`, { method: 'POST', json: body, query: { stream: 1 } });
  await readNdjson<CodeEvent>(res, on);
}

/**
 * The box's code interpreter as a small notebook: cells run in the box's stateful context
 * of their language (variables stay between cells), output streams in as it comes, charts
 * and tables show inline. Shift+Enter runs; history is kept per box in this browser.
 */
export function CodePanel({ box }: { box: Box }) {
  const [cells, setCells] = useState<Cell[]>(() => {
    try {
      return (JSON.parse(localStorage.getItem(storeKey(box.box_id)) ?? '[]') as Cell[]).map((c) => ({ ...c, running: false }));
    } catch {
      return [];
    }
  });
  const [language, setLanguage] = useState<CodeLanguage>('python');
  const [code, setCode] = useState('');
  const [note, setNote] = useState('');
  const next = useRef(Date.now());
  const end = useRef<HTMLDivElement>(null);

  useEffect(() => {
    localStorage.setItem(storeKey(box.box_id), JSON.stringify(cells.filter((c) => !c.running).slice(-KEEP)));
  }, [box.box_id, cells]);

  const update = (id: number, f: (c: Cell) => Cell) => setCells((cur) => cur.map((c) => (c.id === id ? f(c) : c)));

  async function run() {
    if (!code.trim()) return;
    const cell: Cell = { id: next.current++, language, code, stdout: '', stderr: '', results: [], error: null, count: null, running: true };
    setCells((cur) => [...cur, cell]);
    setCode('');
    setTimeout(() => end.current?.scrollIntoView({ block: 'end' }), 0);
    try {
      await runStreaming(box.box_id, { code: cell.code, language }, (e) => {
        if (e.type === 'stdout' || e.type === 'stderr') update(cell.id, (c) => ({ ...c, [e.type]: c[e.type] + e.data }));
        else if (e.type === 'result') update(cell.id, (c) => ({ ...c, results: [...c.results, e.result] }));
        else if (e.type === 'error') update(cell.id, (c) => ({ ...c, error: e.error }));
        else if (e.type === 'failed') update(cell.id, (c) => ({ ...c, failure: e.message }));
        else if (e.type === 'end') update(cell.id, (c) => settle(c, e.execution));
      });
    } catch (e) {
      update(cell.id, (c) => ({ ...c, failure: errorMessage(e) }));
    } finally {
      update(cell.id, (c) => ({ ...c, running: false }));
    }
  }

  async function restart() {
    const ctx = [...cells].reverse().find((c) => c.language === language && c.contextId)?.contextId;
    if (!ctx) return setNote(`No ${language} context to restart yet.`);
    try {
      await call('POST /v1/boxes/:box_id/code/contexts/:context_id/restart', { params: { box_id: box.box_id, context_id: ctx } });
      setNote(`The ${language} context restarted: its variables are gone.`);
    } catch (e) {
      setNote(errorMessage(e));
    }
  }

  const usable = box.status === 'running' || box.status === 'sleeping';
  return (
    <section className="space-y-3" data-testid="code-panel">
      {cells.length === 0 && (
        <p className="text-sm text-ink-400">
          Run Python, JavaScript or bash in this box. Variables stay between cells; charts (matplotlib) and tables (pandas) show inline. numpy, pandas and
          matplotlib are already imported as np, pd and plt.
        </p>
      )}
      {cells.map((c) => (
        <CellView key={c.id} cell={c} />
      ))}
      <div ref={end} className="panel space-y-2 p-3">
        <textarea
          className="input min-h-24 w-full font-mono text-sm"
          placeholder={usable ? `${language} code — Shift+Enter runs` : `The box is ${box.status}: start it to run code.`}
          value={code}
          disabled={!usable}
          data-testid="code-input"
          onChange={(e) => setCode(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && e.shiftKey) {
              e.preventDefault();
              void run();
            }
          }}
        />
        <div className="flex flex-wrap items-center gap-2 text-xs">
          <select className="input py-1 text-xs" value={language} onChange={(e) => setLanguage(e.target.value as CodeLanguage)} data-testid="code-language">
            {LANGS.map((l) => (
              <option key={l} value={l}>
                {l}
              </option>
            ))}
          </select>
          <Button variant="primary" small disabled={!usable || !code.trim()} onClick={() => void run()} data-testid="code-run">
            Run
          </Button>
          <Button small onClick={() => void restart()} data-testid="code-restart">
            Restart {language}
          </Button>
          <Button small variant="ghost" onClick={() => setCells([])} data-testid="code-clear">
            Clear history
          </Button>
          {note && <span className="text-ink-400">{note}</span>}
        </div>
      </div>
    </section>
  );
}

function settle(c: Cell, x: CodeExecution): Cell {
  return { ...c, stdout: x.stdout, stderr: x.stderr, results: x.results, error: x.error, count: x.execution_count, contextId: x.context_id, ms: x.duration_ms };
}

function CellView({ cell }: { cell: Cell }) {
  return (
    <div className="panel overflow-hidden" data-testid="code-cell">
      <div className="flex items-start gap-2 border-b border-ink-800 px-3 py-2">
        <span className="w-12 shrink-0 font-mono text-xs text-ink-500">{cell.running ? '[*]' : `[${cell.count ?? ' '}]`}</span>
        <pre className="min-w-0 flex-1 whitespace-pre-wrap font-mono text-sm">{cell.code}</pre>
        <span className="text-xs text-ink-500">
          {cell.language}
          {cell.ms !== undefined && ` · ${Math.round(cell.ms)} ms`}
        </span>
      </div>
      <div className="space-y-2 px-3 py-2 empty:hidden" data-testid="code-output">
        {cell.stdout && <pre className="whitespace-pre-wrap font-mono text-xs">{cell.stdout}</pre>}
        {cell.stderr && <pre className="whitespace-pre-wrap font-mono text-xs text-amber-300">{cell.stderr}</pre>}
        {cell.results.map((r, i) => (
          <ResultView key={i} r={r} />
        ))}
        {cell.error && (
          <pre className="whitespace-pre-wrap font-mono text-xs text-rose-300" data-testid="code-error">
            {cell.error.traceback || `${cell.error.name}: ${cell.error.value}`}
          </pre>
        )}
        {cell.failure && <p className="text-xs text-rose-300">{cell.failure}</p>}
      </div>
    </div>
  );
}

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
function ResultView({ r }: { r: CodeResult }) {
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
