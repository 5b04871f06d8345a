import { useSyncExternalStore } from 'react';
import { Dialog } from '../ui/Dialog.js';
import { VIEWS } from './nav.js';
import { KEY_HINT } from './shortcuts.js';

let open = false;
const listeners = new Set<() => void>();
const set = (v: boolean) => {
  open = v;
  listeners.forEach((l) => l());
};

/** `?` (or the palette's "Keyboard shortcuts") opens the overlay. */
export const openShortcutHelp = () => set(true);

const GENERAL: [string, string][] = [
  [`${KEY_HINT.mod}K`, 'Command palette: views, creates, settings, every action on a named box'],
  ['?', 'This list of shortcuts'],
  ['Esc', 'Close a dialog, a menu or the palette'],
  ['↑ ↓ Enter', 'In the palette: move and run (a destructive command asks for a second Enter)'],
];

export function ShortcutHelp() {
  const shown = useSyncExternalStore(
    (l) => (listeners.add(l), () => listeners.delete(l)),
    () => open,
  );
  if (!shown) return null;
  return (
    <Dialog title="Keyboard shortcuts" onClose={() => set(false)} testId="shortcut-help" wide>
      <table className="table text-xs">
        <tbody>
          {GENERAL.map(([k, what]) => (
            <tr key={k}>
              <td className="whitespace-nowrap">
                <kbd className="font-mono">{k}</kbd>
              </td>
              <td>{what}</td>
            </tr>
          ))}
          {VIEWS.map((v, i) => (
            <tr key={v.id} data-testid="shortcut-view">
              <td className="whitespace-nowrap">
                <kbd className="font-mono">
                  {KEY_HINT.alt}
                  {i === 9 ? 0 : i + 1}
                </kbd>{' '}
                or <kbd className="font-mono">g {v.key}</kbd>
              </td>
              <td>{v.label}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Dialog>
  );
}
