import { describe, expect, it } from 'vitest';
import type { CodeExecution } from '@box/contract/code';
import { blankCell, clearOutputs, noteStart, parseNotebook, settleRun, startRun, storeNotebook, type CodeCell, type Notebook } from './notebook-state.js';

const exec = (language: 'python' | 'javascript', n: number, stdout = ''): CodeExecution => ({
  context_id: `ctx_${language}`,
  language,
  execution_count: n,
  results: [],
  stdout,
  stderr: '',
  error: null,
  truncated: false,
  duration_ms: 3,
});
const counts = (nb: Notebook) => nb.cells.map((c) => (c.kind === 'code' ? c.count : 'marker'));

describe('notebook state', () => {
  it('gives one counter across languages, and a re-run a new number', () => {
    let nb: Notebook = { cells: [blankCell(1, 'python', 'a'), blankCell(2, 'javascript', 'b'), blankCell(3, 'python', 'c')], counter: 0, seenStart: null };
    nb = settleRun(startRun(nb, 1), 1, exec('python', 1));
    nb = settleRun(startRun(nb, 2), 2, exec('javascript', 1));
    nb = settleRun(startRun(nb, 3), 3, exec('python', 2));
    expect(counts(nb)).toEqual([1, 2, 3]);
    nb = startRun(nb, 1);
    expect((nb.cells[0] as CodeCell).running).toBe(true);
    nb = settleRun(nb, 1, exec('python', 3, 'again'));
    expect(counts(nb)).toEqual([4, 2, 3]);
    expect((nb.cells[0] as CodeCell).stdout).toBe('again');
    expect((nb.cells[0] as CodeCell).serverCount).toBe(3);
    expect(counts(clearOutputs(nb))).toEqual([null, null, null]);
  });

  it('marks a restore once, and only a restore', () => {
    let nb: Notebook = { cells: [blankCell(1, 'python', 'a')], counter: 1, seenStart: null };
    nb = noteStart(nb, { started_at: 't1', last_start: { operation: 'create' } }, 10);
    expect(nb.cells).toHaveLength(1);
    nb = noteStart(nb, { started_at: 't2', last_start: { operation: 'resume' } }, 11);
    expect(nb.cells).toHaveLength(1);
    nb = noteStart(nb, { started_at: 't3', last_start: { operation: 'restore' } }, 12);
    expect(counts(nb)).toEqual([null, 'marker']);
    expect(noteStart(nb, { started_at: 't3', last_start: { operation: 'restore' } }, 13)).toBe(nb);
  });

  it('renumbers the older per-language history in order, so no number repeats', () => {
    const old = [
      { id: 1, language: 'python', code: 'x', count: 4 },
      { id: 2, language: 'javascript', code: 'y', count: 1 },
      { id: 3, language: 'python', code: 'z', count: 4 },
    ];
    const nb = parseNotebook(JSON.stringify(old));
    expect(counts(nb)).toEqual([1, 2, 3]);
    expect(nb.counter).toBe(3);
    expect(parseNotebook(storeNotebook(nb))).toEqual(nb);
    expect(parseNotebook('{broken')).toEqual({ cells: [], counter: 0, seenStart: null });
  });
});
