import { useRef, useState } from 'react';

const LINE_PX = 20;
const PAD_PX = 10;

/**
 * A plain JSON textarea with a line gutter and an inline error pinned under the line it
 * is about (a parse error, or the field the API's `param` names).
 */
export function JsonEditor({
  value,
  onChange,
  error,
  testId,
  labelledBy,
}: {
  value: string;
  onChange: (v: string) => void;
  error: { line: number | null; message: string } | null;
  testId?: string;
  /** id of the visible label that names the editor (the textarea's accessible name) */
  labelledBy: string;
}) {
  const [scroll, setScroll] = useState(0);
  const area = useRef<HTMLTextAreaElement>(null);
  const lines = value.split('\n').length;
  const errTop = error?.line ? PAD_PX + error.line * LINE_PX - scroll : null;
  return (
    <div className="relative overflow-hidden rounded-md border border-ink-700 bg-ink-950 font-mono text-xs focus-within:border-accent-500">
      <div
        className="pointer-events-none absolute top-0 left-0 w-10 select-none border-r border-ink-800 text-right text-ink-400"
        style={{ transform: `translateY(${-scroll}px)`, paddingTop: PAD_PX }}
        aria-hidden
      >
        {Array.from({ length: lines }, (_, i) => (
          <div
            key={i}
            className={`pr-2 ${error?.line === i + 1 ? 'bg-rose-500/20 text-rose-300' : ''}`}
            style={{ height: LINE_PX, lineHeight: `${LINE_PX}px` }}
            data-error-line={error?.line === i + 1 || undefined}
          >
            {i + 1}
          </div>
        ))}
      </div>
      <textarea
        ref={area}
        data-testid={testId}
        aria-labelledby={labelledBy}
        spellCheck={false}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        onScroll={(e) => setScroll(e.currentTarget.scrollTop)}
        onKeyDown={(e) => {
          if (e.key !== 'Tab' || e.shiftKey) return;
          e.preventDefault();
          const t = e.currentTarget;
          const { selectionStart: s, selectionEnd: end } = t;
          onChange(`${value.slice(0, s)}  ${value.slice(end)}`);
          requestAnimationFrame(() => t.setSelectionRange(s + 2, s + 2));
        }}
        aria-invalid={Boolean(error)}
        className="block h-96 w-full resize-y bg-transparent pr-3 pl-12 text-ink-100 outline-none"
        style={{ lineHeight: `${LINE_PX}px`, paddingTop: PAD_PX, paddingBottom: PAD_PX }}
      />
      {error && errTop !== null && errTop > 0 && errTop < (area.current?.clientHeight ?? 384) && (
        <div
          className="pointer-events-none absolute right-3 left-12 rounded border border-rose-500/50 bg-rose-950/95 px-2 py-1 font-sans text-rose-200 shadow-lg"
          style={{ top: errTop }}
          role="alert"
          data-testid="field-error"
          data-line={error.line}
        >
          {error.message}
        </div>
      )}
      {error && (errTop === null || errTop <= 0) && (
        <div
          className="border-t border-rose-500/40 bg-rose-950/60 px-3 py-1.5 font-sans text-rose-200"
          role="alert"
          data-testid="field-error"
          data-line={error.line ?? ''}
        >
          {error.message}
        </div>
      )}
    </div>
  );
}
