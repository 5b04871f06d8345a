import { useState } from 'react';
import { useBoxBudget, useSetBoxBudget } from '../../api/hooks/budget.js';
import { ApiError } from '../../api/client.js';

/**
 * The box's inference budget in its detail: tokens used through the gateway against the
 * budget ("1,234 of 5,000 tokens"), and an inline editor (empty = unlimited).
 */
export function BudgetInfo({ boxId, editable }: { boxId: string; editable: boolean }) {
  const budget = useBoxBudget(boxId);
  const set = useSetBoxBudget(boxId);
  const [draft, setDraft] = useState<string | null>(null);
  const b = budget.data;
  if (!b) return <span className="text-ink-400">…</span>;
  const n = (x: number) => x.toLocaleString('en-US');
  const spent = b.remaining_tokens === 0;
  if (draft !== null) {
    const bad = draft.trim() !== '' && !/^\d+$/.test(draft.trim());
    const save = () => {
      if (bad) return;
      set.mutate(draft.trim() === '' ? null : Number(draft.trim()), { onSuccess: () => setDraft(null) });
    };
    return (
      <span className="flex items-center gap-1">
        <input
          className="input w-24 px-1 py-0 font-mono text-xs"
          placeholder="unlimited"
          value={draft}
          autoFocus
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => e.key === 'Enter' && save()}
          aria-label="Inference budget (tokens)"
          data-testid="budget-input"
        />
        <button
          type="button"
          className="text-accent-300 hover:underline disabled:opacity-40"
          disabled={bad || set.isPending}
          onClick={save}
          data-testid="budget-save"
        >
          save
        </button>
        {set.error instanceof ApiError && <span className="text-rose-300">{set.error.message}</span>}
      </span>
    );
  }
  return (
    <span className="flex items-center gap-2" data-testid="box-budget">
      <span className={`font-mono ${spent ? 'text-rose-300' : ''}`} title={spent ? 'Spent: requests from this box to the gateway are refused' : undefined}>
        {b.inference_budget_tokens === null ? `${n(b.used_tokens)} used, unlimited` : `${n(b.used_tokens)} of ${n(b.inference_budget_tokens)} tokens`}
      </span>
      {editable && (
        <button
          type="button"
          className="text-accent-300 hover:underline"
          onClick={() => setDraft(b.inference_budget_tokens === null ? '' : String(b.inference_budget_tokens))}
          data-testid="budget-edit"
        >
          set
        </button>
      )}
    </span>
  );
}
