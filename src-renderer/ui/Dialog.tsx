import { useLayoutEffect, useRef, type ReactNode } from 'react';

/**
 * Modal dialog: a native `<dialog>` opened with `showModal()`, so the browser keeps focus and
 * Tab inside it (the rest of the page is inert) and turns Esc into `cancel` on the topmost
 * one. It is open while mounted: Esc, the Esc button and a click on the backdrop call
 * `onClose`, and unmounting returns focus to the element that had it before.
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
  const ref = useRef<HTMLDialogElement>(null);
  const closeRef = useRef(onClose);
  closeRef.current = onClose;
  // Before the first paint: the dialog never shows as a non-modal box.
  useLayoutEffect(() => {
    const dialog = ref.current!;
    const opener = document.activeElement as HTMLElement | null;
    // Esc: the parent decides (it unmounts the dialog). A dialog the browser closed itself (a
    // second Esc without a user action in between is not cancelable) asks the parent too.
    const onCancel = (e: Event) => {
      e.preventDefault();
      closeRef.current();
    };
    const onNativeClose = () => closeRef.current();
    dialog.addEventListener('cancel', onCancel);
    dialog.addEventListener('close', onNativeClose);
    if (!dialog.open) dialog.showModal();
    // The body's first field, else its first button, else the Esc button: React's autoFocus
    // does not set the attribute, so look at fields before the header's close button.
    const first =
      dialog.querySelector<HTMLElement>('[data-autofocus]') ??
      dialog.querySelector<HTMLElement>('[data-dialog-body] :is(input:not([type=hidden]):not([disabled]), select, textarea)') ??
      dialog.querySelector<HTMLElement>('[data-dialog-body] button:not([disabled]), footer button:not([disabled])') ??
      dialog.querySelector<HTMLElement>('button');
    first?.focus();
    return () => {
      dialog.removeEventListener('cancel', onCancel);
      dialog.removeEventListener('close', onNativeClose);
      if (dialog.open) dialog.close();
      opener?.focus?.();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      aria-label={title}
      data-testid={testId}
      // The dialog box is the panel itself: a press on the dialog element, not on its content, is on the backdrop.
      onMouseDown={(e) => e.target === e.currentTarget && onClose()}
      className={`panel mx-auto mt-[10vh] max-h-[80vh] w-full overflow-hidden p-0 text-inherit shadow-2xl shadow-black/50 backdrop:bg-black/60 backdrop:backdrop-blur-[2px] ${wide ? 'max-w-3xl' : 'max-w-lg'}`}
    >
      <div className="flex max-h-[80vh] flex-col">
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
    </dialog>
  );
}
