import { useEffect, useRef, type ReactNode } from 'react';

/**
 * Modal dialog: focus moves into it on open and returns to the opener on close, Tab
 * stays inside, Esc closes.
 */
export function Dialog({
  title,
  onClose,
  children,
  footer,
  wide,
  testId,
}: {
  title: string;
  onClose: () => void;
  children: ReactNode;
  footer?: ReactNode;
  wide?: boolean;
  testId?: string;
}) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    // The body's first field, else its first button, else the Esc button: React's autoFocus
    // does not set the attribute, so look at fields before the header's close button.
    const root = ref.current;
    const first =
      root?.querySelector<HTMLElement>('[data-autofocus]') ??
      root?.querySelector<HTMLElement>('[data-dialog-body] :is(input:not([type=hidden]):not([disabled]), select, textarea)') ??
      root?.querySelector<HTMLElement>('[data-dialog-body] button:not([disabled]), footer button:not([disabled])') ??
      root?.querySelector<HTMLElement>('button');
    first?.focus();
    return () => opener?.focus?.();
  }, []);
  // Esc closes even when focus fell out of the dialog (e.g. its content was replaced).
  const closeRef = useRef(onClose);
  closeRef.current = onClose;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || e.defaultPrevented) return;
      const dialogs = document.querySelectorAll('[role="dialog"]');
      if (dialogs[dialogs.length - 1] !== ref.current) return; // only the topmost one
      e.preventDefault();
      closeRef.current();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  const onKeyDown = (e: React.KeyboardEvent) => {
    if (e.key !== 'Tab' || !ref.current) return;
    const items = [...ref.current.querySelectorAll<HTMLElement>('button:not([disabled]), input, select, textarea, [tabindex="0"]')];
    if (items.length === 0) return;
    const [first, last] = [items[0], items[items.length - 1]];
    if (e.shiftKey && document.activeElement === first) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && document.activeElement === last) {
      e.preventDefault();
      first.focus();
    }
  };
  return (
    <div
      className="fixed inset-0 z-40 flex items-start justify-center bg-black/60 pt-[10vh] backdrop-blur-[2px]"
      onMouseDown={(e) => e.target === e.currentTarget && onClose()}
    >
      <div
        ref={ref}
        tabIndex={-1}
        role="dialog"
        aria-modal="true"
        aria-label={title}
        data-testid={testId}
        onKeyDown={onKeyDown}
        className={`panel flex max-h-[80vh] w-full flex-col shadow-2xl shadow-black/50 ${wide ? 'max-w-3xl' : 'max-w-lg'}`}
      >
        <header className="flex items-center justify-between border-b border-ink-700 px-4 py-3">
          <h2 className="text-sm font-semibold">{title}</h2>
          <button type="button" onClick={onClose} className="rounded px-1.5 text-ink-400 hover:bg-ink-700 hover:text-ink-100" aria-label="Close">
            Esc
          </button>
        </header>
        <div className="overflow-auto px-4 py-4" data-dialog-body>
          {children}
        </div>
        {footer && <footer className="flex justify-end gap-2 border-t border-ink-700 px-4 py-3">{footer}</footer>}
      </div>
    </div>
  );
}
