import { setTheme, THEMES, useTheme, type Theme } from './theme.js';

const LABEL: Record<Theme, { icon: string; name: string }> = {
  light: { icon: '☀', name: 'Light' },
  dark: { icon: '☾', name: 'Dark' },
  system: { icon: '◐', name: 'System' },
};

/** Light / dark / system, in the sidebar (the palette has "Theme: …" too). */
export function ThemeSwitch() {
  const theme = useTheme();
  return (
    <div role="radiogroup" aria-label="Theme" data-testid="theme-switch" className="flex flex-col rounded-md border border-ink-800 p-0.5 lg:w-full lg:flex-row">
      {THEMES.map((t) => (
        <button
          key={t}
          type="button"
          role="radio"
          aria-checked={theme === t}
          title={`Theme: ${LABEL[t].name.toLowerCase()}`}
          data-testid={`theme-${t}`}
          onClick={() => setTheme(t)}
          className={`flex flex-1 items-center justify-center gap-1 rounded px-1 py-0.5 ${theme === t ? 'bg-ink-800 text-ink-100' : 'hover:text-ink-100'}`}
        >
          <span aria-hidden>{LABEL[t].icon}</span>
          <span className="hidden lg:inline">{LABEL[t].name}</span>
        </button>
      ))}
    </div>
  );
}
