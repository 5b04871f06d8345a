import { useCallback, useEffect, useId, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { Dialog } from '../ui/Dialog.js';
import './command-sources.js';
import { commandSources, matches, type Command } from './commands.js';

const MAX_SHOWN = 60;

/**
 * Ctrl/Cmd+K: every command of the registered sources (views, creates, settings, each box's
 * actions by name), filtered by the words typed; arrows move, Enter runs, and a destructive
 * command asks for a second Enter.
 */
export function CommandPalette({ onClose }: { onClose: () => void }) {
  const [q, setQ] = useState('');
  const [sel, setSel] = useState(0);
  const [armed, setArmed] = useState<string | null>(null);
  const [bySource, setBySource] = useState<Record<string, Command[]>>({});
  const publish = useCallback((source: string, commands: Command[]) => setBySource((prev) => ({ ...prev, [source]: commands })), []);
  const commands = useMemo(() => Object.values(bySource).flat(), [bySource]);
  const shown = commands.filter((c) => matches(c, q)).slice(0, MAX_SHOWN);
  const run = (c: Command | undefined) => {
    if (!c) return;
    if (c.confirm && armed !== c.id) return setArmed(c.id);
    onClose();
    void c.run();
  };
  const listId = useId();
  const optionId = (i: number) => `${listId}-opt-${i}`;
  const list = useRef<HTMLUListElement>(null);
  // keep the selected option in view as the arrows move through a list longer than the box
  useEffect(() => {
    list.current?.querySelector('[aria-selected="true"]')?.scrollIntoView?.({ block: 'nearest' });
  }, [sel]);
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'ArrowDown') setSel((s) => Math.min(s + 1, shown.length - 1));
    else if (e.key === 'ArrowUp') setSel((s) => Math.max(s - 1, 0));
    else if (e.key === 'Enter') run(shown[sel]);
    else return;
    if (e.key !== 'Enter') setArmed(null);
    e.preventDefault();
  };
  const Sources = commandSources();
  return (
    <Dialog title="Command palette" onClose={onClose} testId="command-palette">
      {Sources.map((S, i) => (
        <S key={i} publish={publish} />
      ))}
      <input
        className="input mb-2"
        placeholder="Type a command, a box name, an action (fork, sleep…)"
        aria-label="Command"
        role="combobox"
        aria-expanded
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={shown[sel] ? optionId(sel) : undefined}
        value={q}
        autoFocus
        data-autofocus
        data-testid="palette-input"
        onChange={(e) => {
          setQ(e.target.value);
          setSel(0);
          setArmed(null);
        }}
        onKeyDown={onKey}
      />
      {/* The list is focusable itself (keyboard users can reach and scroll it) and answers the
          same keys as the input; options are plain text rows, never nested controls. */}
      <ul
        ref={list}
        id={listId}
        role="listbox"
        aria-label="Commands"
        tabIndex={0}
        aria-activedescendant={shown[sel] ? optionId(sel) : undefined}
        onKeyDown={onKey}
        className="max-h-[60vh] overflow-y-auto rounded"
      >
        {shown.map((c, i) => (
          <li
            key={c.id}
            id={optionId(i)}
            role="option"
            aria-selected={i === sel}
            data-testid="palette-item"
            onMouseEnter={() => setSel(i)}
            onClick={() => run(c)}
            className={`flex w-full cursor-pointer justify-between gap-3 rounded px-2 py-1.5 text-left ${i === sel ? 'bg-ink-700' : ''} ${armed === c.id ? 'text-rose-200' : ''}`}
          >
            <span>{armed === c.id ? `${c.confirm} Enter again to confirm` : c.label}</span>
            {c.hint && <kbd className="truncate font-mono text-[11px] text-ink-400">{c.hint}</kbd>}
          </li>
        ))}
        {shown.length === 0 && (
          <li role="option" aria-selected={false} aria-disabled className="px-2 py-1.5 text-ink-400">
            No command matches.
          </li>
        )}
      </ul>
    </Dialog>
  );
}
