import type { CodeError, CodeExecution, CodeLanguage, CodeResult } from '@box/contract/code';

/**
 * The code tab's notebook, kept per box in this browser (pure, unit-tested). One execution
 * counter for the whole notebook, whatever the language: the box has a context per language,
 * each counting its own runs, and a restore takes a context's count back, so the numbers the
 * service gives (kept as `serverCount`) repeat; the notebook's own never do. A restore of the
 * box (a new start whose operation is `restore`) leaves a marker where it happened.
 */
export interface CodeCell {
  kind: 'code';
  id: number;
  language: CodeLanguage;
  code: string;
  /** The code as it last ran (the cell is "edited" when they differ). */
  ranCode: string | null;
  stdout: string;
  stderr: string;
  results: CodeResult[];
  error: CodeError | null;
  count: number | null;
  serverCount: number | null;
  running: boolean;
  failure?: string;
  contextId?: string;
  ms?: number;
}

interface MarkerCell {
  kind: 'marker';
  id: number;
  text: string;
  at: string;
}

type Cell = CodeCell | MarkerCell;

export interface Notebook {
  cells: Cell[];
  /** The last execution number given out. */
  counter: number;
  /** The box's started_at the notebook saw last (a new one after a restore adds a marker). */
  seenStart: string | null;
}

const KEEP = 80;
const EMPTY: Notebook = { cells: [], counter: 0, seenStart: null };

export const blankCell = (id: number, language: CodeLanguage, code: string): CodeCell => ({
  kind: 'code',
  id,
  language,
  code,
  ranCode: null,
  stdout: '',
  stderr: '',
  results: [],
  error: null,
  count: null,
  serverCount: null,
  running: false,
});

/** Reads a stored notebook; the older form (an array of cells numbered per language) is renumbered in order. */
export function parseNotebook(raw: string | null): Notebook {
  if (!raw) return EMPTY;
  try {
    const v = JSON.parse(raw) as unknown;
    if (Array.isArray(v)) {
      let counter = 0;
      const cells = (v as Array<Partial<CodeCell> & { id: number; language: CodeLanguage; code: string }>).map((c) => ({
        ...blankCell(c.id, c.language, c.code),
        ...c,
        kind: 'code' as const,
        ranCode: c.code,
        serverCount: c.count ?? null,
        count: c.count === null || c.count === undefined ? null : ++counter,
        running: false,
      }));
      return { cells, counter, seenStart: null };
    }
    const nb = v as Notebook;
    return { ...nb, cells: nb.cells.map((c) => (c.kind === 'code' ? { ...c, running: false } : c)) };
  } catch {
    return EMPTY;
  }
}

export const storeNotebook = (nb: Notebook) => JSON.stringify({ ...nb, cells: nb.cells.slice(-KEEP) });

/** A run of `id` begins: outputs go, the cell shows [*]. */
export const startRun = (nb: Notebook, id: number): Notebook => ({
  ...nb,
  cells: nb.cells.map((c) =>
    c.id === id && c.kind === 'code'
      ? { ...c, running: true, ranCode: c.code, stdout: '', stderr: '', results: [], error: null, failure: undefined, ms: undefined }
      : c,
  ),
});

/** A run of `id` ended: the notebook's next number, the service's outputs. */
export function settleRun(nb: Notebook, id: number, x: CodeExecution | null): Notebook {
  const counter = nb.counter + 1;
  return {
    ...nb,
    counter,
    cells: nb.cells.map((c) => {
      if (c.id !== id || c.kind !== 'code') return c;
      const done = { ...c, running: false, count: counter };
      if (!x) return done;
      return {
        ...done,
        stdout: x.stdout,
        stderr: x.stderr,
        results: x.results,
        error: x.error,
        serverCount: x.execution_count,
        contextId: x.context_id,
        ms: x.duration_ms,
      };
    }),
  };
}

export const editCell = (nb: Notebook, id: number, f: (c: CodeCell) => CodeCell): Notebook => ({
  ...nb,
  cells: nb.cells.map((c) => (c.id === id && c.kind === 'code' ? f(c) : c)),
});

export const clearOutputs = (nb: Notebook): Notebook => ({
  ...nb,
  cells: nb.cells.map((c) =>
    c.kind === 'code' && !c.running ? { ...c, stdout: '', stderr: '', results: [], error: null, failure: undefined, ms: undefined, count: null } : c,
  ),
});

export const addMarker = (nb: Notebook, id: number, text: string, at = new Date().toISOString()): Notebook => ({
  ...nb,
  cells: [...nb.cells, { kind: 'marker', id, text, at }],
});

/**
 * Notes the box's latest start: after a restore (a start the notebook has not seen whose
 * operation is `restore`) a marker says that the state went back; the first look only records it.
 */
export function noteStart(nb: Notebook, box: { started_at: string | null; last_start: { operation: string } | null }, id: number): Notebook {
  if (!box.started_at || box.started_at === nb.seenStart) return nb;
  const seen = { ...nb, seenStart: box.started_at };
  if (nb.seenStart === null || box.last_start?.operation !== 'restore' || nb.cells.length === 0) return seen;
  return addMarker(
    seen,
    id,
    'The box was restored to a checkpoint: variables and files are as they were then. Cells above ran before the restore.',
    box.started_at,
  );
}
