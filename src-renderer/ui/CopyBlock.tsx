import { useState } from 'react';
import { Button } from './Button.js';
import { copyText } from './CopyButton.js';

/**
 * A block of text to copy (a configuration snippet, a certificate) with a Copy button in its
 * corner that says "Copied" for a moment. `wrap` breaks long lines (a certificate) instead
 * of scrolling them (a snippet whose lines must stay whole).
 */
export function CopyBlock({ text, testId, wrap = false }: { text: string; testId?: string; wrap?: boolean }) {
  const [copied, setCopied] = useState(false);
  const lines = wrap ? 'break-all whitespace-pre-wrap' : 'whitespace-pre';
  return (
    <div className="relative">
      <pre className={`overflow-x-auto rounded bg-ink-950 p-3 pr-16 font-mono text-xs ${lines} text-ink-300`} data-testid={testId}>
        {text}
      </pre>
      <Button
        small
        variant="ghost"
        className="absolute top-1.5 right-1.5"
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
  );
}
