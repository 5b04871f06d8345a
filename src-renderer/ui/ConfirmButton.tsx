import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { Button } from './Button.js';

/**
 * A destructive button that asks first (no native confirm()). The first click relabels it
 * (`confirmLabel`) and opens a small popover under it saying what will happen, with Confirm
 * and Cancel; focus goes to Confirm (Enter confirms, Escape or a click elsewhere cancels).
 * A second click on the button itself confirms too. It stays open until answered: a
 * question that disappears by itself is one the user never saw (issue 38, item 6).
 */
export function ConfirmButton({
  onConfirm,
  children,
  busy,
  disabled,
  small = true,
  testId,
  confirmLabel = 'Click again to confirm',
  consequence,
  confirmText = 'Confirm',
}: {
  onConfirm: () => void;
  children: ReactNode;
  busy?: boolean;
  disabled?: boolean;
  small?: boolean;
  testId?: string;
  confirmLabel?: string;
  /** What confirming does, in a sentence (the popover's text); the label stands in without one. */
  consequence?: string;
  /** The popover's confirm button. */
  confirmText?: string;
}) {
  const [armed, setArmed] = useState(false);
  const wrap = useRef<HTMLSpanElement>(null);
  const main = useRef<HTMLButtonElement>(null);
  const yes = useRef<HTMLButtonElement>(null);
  const id = useId();
  const cancel = (refocus: boolean) => {
    setArmed(false);
    if (refocus) main.current?.focus();
  };
  const confirm = () => {
    setArmed(false);
    onConfirm();
  };
  useEffect(() => {
    if (!armed) return;
    yes.current?.focus();
    const away = (e: MouseEvent) => wrap.current && !wrap.current.contains(e.target as Node) && setArmed(false);
    const esc = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      e.stopPropagation();
      cancel(true);
    };
    document.addEventListener('mousedown', away);
    document.addEventListener('keydown', esc, true);
    return () => {
      document.removeEventListener('mousedown', away);
      document.removeEventListener('keydown', esc, true);
    };
  }, [armed]);
  // Disabled meanwhile (the service went away, the state changed): the question is void.
  useEffect(() => {
    if (disabled) setArmed(false);
  }, [disabled]);
  return (
    <span className="relative inline-flex" ref={wrap}>
      <Button
        ref={main}
        small={small}
        variant={armed ? 'danger' : 'ghost'}
        busy={busy}
        disabled={disabled}
        needsService
        data-testid={testId}
        aria-haspopup="dialog"
        aria-expanded={armed}
        aria-controls={armed ? id : undefined}
        onClick={() => (armed ? confirm() : setArmed(true))}
      >
        {armed ? confirmLabel : children}
      </Button>
      {armed && (
        <div
          id={id}
          role="alertdialog"
          aria-label={confirmLabel}
          data-testid="confirm-popover"
          className="panel absolute top-full right-0 z-50 mt-1 w-64 space-y-2 p-3 text-left text-xs whitespace-normal shadow-lg shadow-black/40"
        >
          <p className="text-ink-200" data-testid="confirm-text">
            {consequence ?? confirmLabel}
          </p>
          <div className="flex justify-end gap-1.5">
            <Button small variant="ghost" onClick={() => cancel(true)} data-testid="confirm-cancel">
              Cancel
            </Button>
            <Button ref={yes} small variant="danger" needsService onClick={confirm} data-testid="confirm-yes">
              {confirmText}
            </Button>
          </div>
        </div>
      )}
    </span>
  );
}
