import { useSyncExternalStore } from 'react';

/**
 * Toasts: short notices for finished long work (a box created, a fork ready) and for
 * things done elsewhere (the box you terminated). A module store, so any code can call
 * `toast()` without a provider.
 */
interface Toast {
  id: number;
  text: string;
  kind: 'ok' | 'error' | 'info';
  /** A button in the toast (e.g. undo); clicking it runs `run` and closes the toast. */
  action?: { label: string; run: () => void };
}

let toasts: Toast[] = [];
let nextId = 1;
const listeners = new Set<() => void>();
const emit = () => listeners.forEach((l) => l());

export function toast(text: string, kind: Toast['kind'] = 'ok', ms = 6000, action?: Toast['action']) {
  const t = { id: nextId++, text, kind, action };
  toasts = [...toasts, t].slice(-4);
  emit();
  setTimeout(() => dismiss(t.id), ms);
}

function dismiss(id: number) {
  toasts = toasts.filter((t) => t.id !== id);
  emit();
}

const subscribe = (l: () => void) => {
  listeners.add(l);
  return () => listeners.delete(l);
};

const KIND = { ok: 'border-accent-500/50', error: 'border-rose-500/60', info: 'border-ink-600' };

export function Toaster() {
  const list = useSyncExternalStore(subscribe, () => toasts);
  return (
    <div className="pointer-events-none fixed right-4 bottom-4 z-50 flex w-80 flex-col gap-2" role="status" aria-live="polite">
      {list.map((t) => (
        <div
          key={t.id}
          data-testid="toast"
          data-kind={t.kind}
          className={`panel pointer-events-auto flex items-start gap-2 border-l-4 px-3 py-2 shadow-lg shadow-black/30 ${KIND[t.kind]}`}
        >
          <span className="flex-1">{t.text}</span>
          {t.action && (
            <button
              type="button"
              className="font-semibold text-accent-300 hover:underline"
              data-testid="toast-action"
              onClick={() => {
                dismiss(t.id);
                t.action!.run();
              }}
            >
              {t.action.label}
            </button>
          )}
          <button type="button" className="text-ink-400 hover:text-ink-100" aria-label="Dismiss" onClick={() => dismiss(t.id)}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
