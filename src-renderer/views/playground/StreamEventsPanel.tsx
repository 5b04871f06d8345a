import { useState } from 'react';
import type { StreamEvent } from './stream-read.js';

/** What one event carries, in a line: a text delta as its text, else its data without the type. */
function summary(e: StreamEvent): string {
  const d = e.data as Record<string, any>;
  if (typeof d !== 'object' || d === null) return String(d);
  if (typeof d.delta === 'string') return JSON.stringify(d.delta);
  if (d.delta && typeof d.delta === 'object' && typeof d.delta.text === 'string') return JSON.stringify(d.delta.text);
  const content = d.choices?.[0]?.delta?.content;
  if (typeof content === 'string') return JSON.stringify(content);
  const { type: _type, ...rest } = d;
  const text = JSON.stringify(rest);
  return text.length > 160 ? `${text.slice(0, 157)}…` : text;
}

/**
 * A streamed answer as it arrived: one row per server-sent event (its type, when it came,
 * what it carried); a row opens to its full data. The assembled JSON is the other tab.
 */
export function StreamEventsPanel({ events }: { events: StreamEvent[] }) {
  const [open, setOpen] = useState<number | null>(null);
  const counts = new Map<string, number>();
  for (const e of events) counts.set(e.type, (counts.get(e.type) ?? 0) + 1);
  return (
    <div data-testid="stream-events" className="space-y-2">
      <p className="text-xs text-ink-400" data-testid="stream-event-counts">
        {events.length} events: {[...counts].map(([t, n]) => `${t} ×${n}`).join(', ')}
      </p>
      <ol className="max-h-96 overflow-auto rounded bg-ink-950 p-2 font-mono text-xs">
        {events.map((e, i) => (
          <li key={i} data-testid="stream-event" data-type={e.type} className="border-b border-ink-900 last:border-0">
            <button
              type="button"
              className="flex w-full min-w-0 items-baseline gap-2 py-0.5 text-left hover:bg-ink-900"
              onClick={() => setOpen(open === i ? null : i)}
              aria-expanded={open === i}
            >
              <span className="w-10 shrink-0 text-right text-ink-400">{e.ms}ms</span>
              <span className="shrink-0 text-accent-400" data-testid="stream-event-type">
                {e.event && e.event !== e.type ? `${e.event} · ` : ''}
                {e.type}
              </span>
              <span className="min-w-0 truncate text-ink-300">{summary(e)}</span>
            </button>
            {open === i && <pre className="whitespace-pre-wrap break-all p-2 text-ink-300">{JSON.stringify(e.data, null, 2)}</pre>}
          </li>
        ))}
      </ol>
    </div>
  );
}
