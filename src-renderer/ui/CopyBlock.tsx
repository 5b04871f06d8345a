import { useState, type ReactNode } from 'react';
import { Button } from './Button.js';
import { copyText } from './CopyButton.js';

/**
 * A block of text to copy (a configuration snippet, a certificate) with a Copy button that
 * says "Copied" for a moment. The button sits in the block's own bar above the text, never
 * over it, and long lines wrap (at word boundaries, or anywhere with `wrap` for a
 * certificate) instead of being clipped; what is copied is the text exactly.
 */
export function CopyBlock({ text, testId, wrap = false, label }: { text: string; testId?: string; wrap?: boolean; label?: ReactNode }) {
  const [copied, setCopied] = useState(false);
  const lines = wrap ? 'break-all whitespace-pre-wrap' : 'whitespace-pre-wrap [overflow-wrap:anywhere]';
  return (
    <div className="rounded bg-ink-950" data-testid={testId ? `${testId}-block` : undefined}>
      <div className="flex items-center justify-between gap-2 border-b border-ink-800 py-1 pr-1 pl-3 text-[11px] text-ink-400">
        <span className="min-w-0 truncate">{label}</span>
        <Button
          small
          variant="ghost"
          onClick={() => {
            void copyText(text).then(() => {
              setCopied(true);
              setTimeout(() => setCopied(false), 1500);
            });
          }}
        >
          {copied ? 'Copied' : 'Copy'}
        </Button>
      </div>
      <pre className={`p-3 font-mono text-xs ${lines} text-ink-300`} data-testid={testId}>
        {text}
      </pre>
    </div>
  );
}
