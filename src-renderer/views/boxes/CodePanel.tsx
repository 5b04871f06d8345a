import { useEffect, useRef, useState } from 'react';
import type { Box } from '@box/contract/boxes';
import type { CodeEvent, CodeExecution, CodeLanguage } from '@box/contract/code';
import { apiFetch, call, errorMessage } from '../../api/client.js';
import { readNdjson } from '../../api/exec-stream.js';
import { Button } from '../../ui/Button.js';
import { CellEditor } from './notebook/CellEditor.js';
import { ResultView } from './notebook/CellOutput.js';
import {
  addMarker,
  blankCell,
  clearOutputs,
  editCell,
  noteStart,
  parseNotebook,
  settleRun,
  startRun,
  storeNotebook,
  type CodeCell,
  type Notebook,
} from './notebook/notebook-state.js';

const LANGS: CodeLanguage[] = ['python', 'javascript', 'typescript', 'r', 'bash'];
const storeKey = (boxId: string) => `box-code-history:${boxId}`;

/** Runs one cell with `?stream=1`: output shows as it comes, the end event settles the cell. */
async function runStreaming(boxId: string, body: { code: string; language: CodeLanguage }, on: (e: CodeEvent | { type: 'failed'; message: string }) => void) {
  const res = await apiFetch(`/v1/boxes/${boxId}/code/run`, { method: 'POST', json: body, query: { stream: 1 } });
  await readNdjson<CodeEvent>(res, on);
}

/**
 * The box's code interpreter as a notebook: cells are CodeMirror editors (highlighted, edited
 * in place, run again), running in the box's stateful context of their language, output
 * streaming in; run all, copy, delete and clear outputs; one execution counter for the
 * notebook; a marker where the box was restored. Shift+Enter runs; kept per box in this browser.
 */
export function CodePanel({ box }: { box: Box }) {
  const [nb, setNb] = useState<Notebook>(() => parseNotebook(localStorage.getItem(storeKey(box.box_id))));
  const [language, setLanguage] = useState<CodeLanguage>('python');
  const [code, setCode] = useState('');
  const [note, setNote] = useState('');
  const [runningAll, setRunningAll] = useState(false);
  const next = useRef(Date.now());
  const end = useRef<HTMLDivElement>(null);
  const cellsRef = useRef(nb.cells);
  cellsRef.current = nb.cells;

  useEffect(() => {
    if (!nb.cells.some((c) => c.kind === 'code' && c.running)) localStorage.setItem(storeKey(box.box_id), storeNotebook(nb));
  }, [box.box_id, nb]);
  useEffect(() => setNb((cur) => noteStart(cur, box, next.current++)), [box]);

  async function runCell(id: number) {
    const cell = cellsRef.current.find((c): c is CodeCell => c.id === id && c.kind === 'code');
    if (!cell || cell.running) return;
    setNb((cur) => startRun(cur, id));
    const patch = (f: (c: CodeCell) => CodeCell) => setNb((cur) => editCell(cur, id, f));
    let finished: CodeExecution | null = null;
    try {
      await runStreaming(box.box_id, { code: cell.code, language: cell.language }, (e) => {
        if (e.type === 'stdout' || e.type === 'stderr') patch((c) => ({ ...c, [e.type]: c[e.type] + e.data }));
        else if (e.type === 'result') patch((c) => ({ ...c, results: [...c.results, e.result] }));
        else if (e.type === 'error') patch((c) => ({ ...c, error: e.error }));
        else if (e.type === 'failed') patch((c) => ({ ...c, failure: e.message }));
        else if (e.type === 'end') finished = e.execution;
      });
    } catch (e) {
      patch((c) => ({ ...c, failure: errorMessage(e) }));
    } finally {
      setNb((cur) => settleRun(cur, id, finished));
    }
  }

  async function runNew() {
    if (!code.trim()) return;
    const cell = blankCell(next.current++, language, code);
    cellsRef.current = [...cellsRef.current, cell];
    setNb((cur) => ({ ...cur, cells: [...cur.cells, cell] }));
    setCode('');
    setTimeout(() => end.current?.scrollIntoView({ block: 'end' }), 0);
    await runCell(cell.id);
  }

  async function runAll() {
    setRunningAll(true);
    try {
      for (const c of cellsRef.current) if (c.kind === 'code' && c.code.trim()) await runCell(c.id);
    } finally {
      setRunningAll(false);
    }
  }

  async function restart() {
    const ctx = [...nb.cells].reverse().find((c): c is CodeCell => c.kind === 'code' && c.language === language && !!c.contextId)?.contextId;
    if (!ctx) return setNote(`No ${language} context to restart yet.`);
    try {
      await call('POST /v1/boxes/:box_id/code/contexts/:context_id/restart', { params: { box_id: box.box_id, context_id: ctx } });
      setNb((cur) => addMarker(cur, next.current++, `The ${language} context restarted: its variables are gone.`));
      setNote('');
    } catch (e) {
      setNote(errorMessage(e));
    }
  }

  async function copy(c: CodeCell) {
    try {
      await navigator.clipboard.writeText(c.code);
      setNote('Copied the cell’s code.');
    } catch (e) {
      setNote(`Could not copy: ${errorMessage(e)}`);
    }
  }

  const usable = box.status === 'running' || box.status === 'sleeping';
  const busy = nb.cells.some((c) => c.kind === 'code' && c.running);
  return (
    <section className="space-y-3" data-testid="code-panel">
      {nb.cells.length === 0 ? (
        <p className="text-sm text-ink-400">
          Run Python, JavaScript or bash in this box. Variables stay between cells; charts (matplotlib) and tables (pandas) show inline. numpy, pandas and
          matplotlib are already imported as np, pd and plt. Cells can be edited and run again.
        </p>
      ) : (
        <div className="flex flex-wrap items-center gap-2 text-xs">
          <Button small needsService disabled={!usable || busy} busy={runningAll} onClick={() => void runAll()} data-testid="code-run-all">
            Run all
          </Button>
          <Button small onClick={() => setNb(clearOutputs)} disabled={busy} data-testid="code-clear-outputs">
            Clear outputs
          </Button>
          <Button small variant="ghost" disabled={busy} onClick={() => setNb((cur) => ({ ...cur, cells: [], counter: 0 }))} data-testid="code-clear">
            Clear notebook
          </Button>
        </div>
      )}
      {nb.cells.map((c) =>
        c.kind === 'marker' ? (
          <div key={c.id} className="flex items-center gap-2 text-xs text-amber-200" data-testid="code-marker" role="note">
            <span className="h-px flex-1 bg-amber-500/40" />
            <span>
              {c.text} <time className="text-ink-400">{new Date(c.at).toLocaleTimeString()}</time>
            </span>
            <span className="h-px flex-1 bg-amber-500/40" />
          </div>
        ) : (
          <CellView
            key={c.id}
            cell={c}
            usable={usable}
            onCode={(code) => setNb((cur) => editCell(cur, c.id, (x) => ({ ...x, code })))}
            onRun={() => void runCell(c.id)}
            onCopy={() => void copy(c)}
            onDelete={() => setNb((cur) => ({ ...cur, cells: cur.cells.filter((x) => x.id !== c.id) }))}
          />
        ),
      )}
      <div ref={end} className="panel space-y-2 p-3">
        <CellEditor
          value={code}
          language={language}
          onChange={setCode}
          onRun={() => void runNew()}
          testId="code-input"
          readOnly={!usable}
          placeholder={usable ? `${language} code — Shift+Enter runs` : `The box is ${box.status}: start it to run code.`}
        />
        <div className="flex flex-wrap items-center gap-2 text-xs">
          <select
            className="input py-1 text-xs"
            value={language}
            onChange={(e) => setLanguage(e.target.value as CodeLanguage)}
            data-testid="code-language"
            aria-label="Language of the new cell"
          >
            {LANGS.map((l) => (
              <option key={l} value={l}>
                {l}
              </option>
            ))}
          </select>
          <Button variant="primary" small disabled={!usable || !code.trim()} onClick={() => void runNew()} data-testid="code-run">
            Run
          </Button>
          <Button small onClick={() => void restart()} data-testid="code-restart">
            Restart {language}
          </Button>
          {note && (
            <span className="text-ink-400" data-testid="code-note">
              {note}
            </span>
          )}
        </div>
      </div>
    </section>
  );
}

function CellView({
  cell,
  usable,
  onCode,
  onRun,
  onCopy,
  onDelete,
}: {
  cell: CodeCell;
  usable: boolean;
  onCode: (code: string) => void;
  onRun: () => void;
  onCopy: () => void;
  onDelete: () => void;
}) {
  const edited = cell.ranCode !== null && cell.ranCode !== cell.code;
  return (
    <div className="panel overflow-hidden" data-testid="code-cell" data-edited={edited ? 'true' : 'false'}>
      <div className="flex items-start gap-2 border-b border-ink-800 px-3 py-2">
        <span
          className="w-12 shrink-0 pt-1 font-mono text-xs text-ink-400"
          data-testid="code-count"
          title={cell.serverCount !== null ? `${cell.language} context: run ${cell.serverCount}` : undefined}
        >
          {cell.running ? '[*]' : `[${cell.count ?? ' '}]`}
        </span>
        <CellEditor value={cell.code} language={cell.language} onChange={onCode} onRun={onRun} testId="code-cell-editor" />
        <div className="flex shrink-0 flex-col items-end gap-1 text-xs text-ink-400">
          <span>
            {cell.language}
            {cell.ms !== undefined && ` · ${Math.round(cell.ms)} ms`}
            {edited && ' · edited'}
          </span>
          <div className="flex gap-1">
            <Button small variant="ghost" disabled={!usable || cell.running} onClick={onRun} data-testid="code-cell-run" title="Run this cell (Shift+Enter)">
              ▶ Run
            </Button>
            <Button small variant="ghost" onClick={onCopy} data-testid="code-cell-copy">
              Copy
            </Button>
            <Button small variant="ghost" disabled={cell.running} onClick={onDelete} data-testid="code-cell-delete" aria-label="Delete cell">
              Delete
            </Button>
          </div>
        </div>
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
