import { useEffect } from 'react';
import { VIEWS } from './nav.js';
import { navigate } from './router.js';

/** macOS shows ⌥/⌘ glyphs; Linux and Windows name the keys (Alt, Ctrl). */
const IS_MAC = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);
export const KEY_HINT = IS_MAC ? { alt: '⌥', mod: '⌘' } : { alt: 'Alt+', mod: 'Ctrl+' };

const typing = (t: EventTarget | null) =>
  t instanceof HTMLElement && (t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName) || t.closest('.xterm') !== null);

/** Ctrl/Cmd+K opens the palette, `?` the shortcut list; Alt+1..9/0 or "g" then a view key switches views. */
export function useGlobalShortcuts(openPalette: () => void, openHelp: () => void = () => {}) {
  useEffect(() => {
    let gAt = 0;
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        openPalette();
        return;
      }
      // Alt+1..9, and Alt+0 for the tenth view; e.code too, where Alt changes the character.
      const digit = /^[0-9]$/.test(e.key) ? e.key : /^Digit[0-9]$/.test(e.code) ? e.code.slice(5) : '';
      if (e.altKey && digit) {
        const v = VIEWS[digit === '0' ? 9 : Number(digit) - 1];
        if (v) {
          e.preventDefault();
          navigate([v.id]);
        }
        return;
      }
      if (typing(e.target) || e.ctrlKey || e.metaKey || e.altKey) return;
      if (e.key === '?') {
        e.preventDefault();
        openHelp();
        return;
      }
      if (e.key === 'g') {
        gAt = Date.now();
        return;
      }
      if (Date.now() - gAt < 1200) {
        const v = VIEWS.find((x) => x.key === e.key);
        if (v) navigate([v.id]);
        gAt = 0;
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [openPalette, openHelp]);
}
