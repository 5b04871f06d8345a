import { useState } from 'react';
import { Button } from '../../ui/Button.js';
import type { ToolCall } from './tool-turn.js';

/** A tool-call turn: each call the model made (name, arguments), a field for its result, and the button that sends the follow-up. */
export function ToolTurnPanel({ calls, busy, onSend }: { calls: ToolCall[]; busy: boolean; onSend: (results: Record<string, string>) => void }) {
  const [results, setResults] = useState<Record<string, string>>({});
  return (
    <div className="mb-2 space-y-2 rounded border border-sky-500/30 bg-sky-500/5 p-3" data-testid="tool-turn">
      <p className="text-xs text-ink-400">
        The model called {calls.length === 1 ? 'a tool' : `${calls.length} tools`}. Answer as the tool would, then send the follow-up.
      </p>
      {calls.map((c) => (
        <div key={c.id} className="space-y-1" data-testid="tool-call">
          <div className="font-mono text-xs">
            <span className="text-sky-300" data-testid="tool-call-name">
              {c.name}
            </span>
            <span className="text-ink-400">(</span>
            <span data-testid="tool-call-args">{c.arguments}</span>
            <span className="text-ink-400">)</span>
          </div>
          <input
            className="input font-mono"
            placeholder="tool result"
            value={results[c.id] ?? ''}
            onChange={(e) => setResults((r) => ({ ...r, [c.id]: e.target.value }))}
            data-testid="tool-result"
            aria-label={`result of ${c.name}`}
          />
        </div>
      ))}
      <Button variant="primary" busy={busy} onClick={() => onSend(results)} data-testid="send-tool-results">
        Send tool results
      </Button>
    </div>
  );
}
