import { useSyncExternalStore } from 'react';

/**
 * The colour theme (issue 38, item 7): light, dark, or the system's (the default). Kept in
 * localStorage; applied as `data-theme` on <html>, which styles.css reads (no attribute:
 * the `prefers-color-scheme` media query decides).
 */
export type Theme = 'light' | 'dark' | 'system';
export const THEMES: readonly Theme[] = ['light', 'dark', 'system'];

const KEY = 'box-desktop.theme';
const listeners = new Set<() => void>();

function stored(): Theme {
  try {
    const v = localStorage.getItem(KEY);
    return v === 'light' || v === 'dark' ? v : 'system';
  } catch {
    return 'system';
  }
}

let current: Theme = stored();

function apply(t: Theme) {
  const root = document.documentElement;
  if (t === 'system') delete root.dataset.theme;
  else root.dataset.theme = t;
}

/** Applies the saved theme (at boot, before the first render: no flash of the other one). */
export function applySavedTheme() {
  apply(current);
}

export function setTheme(t: Theme) {
  current = t;
  try {
    if (t === 'system') localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, t);
  } catch {
    // storage refused (private mode): the choice lasts for this page
  }
  apply(t);
  listeners.forEach((l) => l());
}

const subscribe = (l: () => void) => {
  listeners.add(l);
  return () => listeners.delete(l);
};

export const useTheme = () => useSyncExternalStore(subscribe, () => current);
