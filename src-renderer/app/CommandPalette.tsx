import { useMemo, useState } from 'react';
import { Dialog } from '../ui/Dialog.js';
import { VIEWS } from './nav.js';
import { navigate } from './router.js';

interface Command {
  id: string;
  label: string;
  hint?: string;
  run: () => void;
}

/** Ctrl/Cmd+K: fuzzy-ish filter over views and actions; arrows move, Enter runs. */
export function CommandPalette({ onClose, extra = [] }: { onClose: () => void; extra?: Command[] }) {
  const [q, setQ] = useState('');
  const [sel, setSel] = useState(0);
  const commands = useMemo<Command[]>(
    () => [...VIEWS.map((v) => ({ id: `go-${v.id}`, label: `Go to ${v.label}`, hint: `g ${v.key}`, run: () => navigate([v.id]) })), ...extra],
    [extra],
  );
  const shown = commands.filter((c) => c.label.toLowerCase().includes(q.toLowerCase().trim()));
  const run = (c: Command | undefined) => {
    if (!c) return;
    onClose();
    c.run();
  };
  return (
    <Dialog title="Command palette" onClose={onClose} testId="command-palette">
      <input
        className="input mb-2"
        placeholder="Type a command…"
        value={q}
        autoFocus
        data-autofocus
        data-testid="palette-input"
        onChange={(e) => {
          setQ(e.target.value);
          setSel(0);
        }}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown') setSel((s) => Math.min(s + 1, shown.length - 1));
          else if (e.key === 'ArrowUp') setSel((s) => Math.max(s - 1, 0));
          else if (e.key === 'Enter') run(shown[sel]);
          else return;
          e.preventDefault();
        }}
      />
      <ul role="listbox" aria-label="Commands">
        {shown.map((c, i) => (
          <li key={c.id} role="option" aria-selected={i === sel}>
            <button
              type="button"
              tabIndex={-1}
              onMouseEnter={() => setSel(i)}
              onClick={() => run(c)}
              className={`flex w-full justify-between rounded px-2 py-1.5 text-left ${i === sel ? 'bg-ink-700' : ''}`}
            >
              <span>{c.label}</span>
              {c.hint && <kbd className="font-mono text-[11px] text-ink-400">{c.hint}</kbd>}
            </button>
          </li>
        ))}
        {shown.length === 0 && <li className="px-2 py-1.5 text-ink-400">No command matches.</li>}
      </ul>
    </Dialog>
  );
}
