import { useEffect } from 'react';
import type { CommandSource } from './commands.js';
import { VIEWS } from './nav.js';
import { navigate } from './router.js';
import { openShortcutHelp } from './shortcut-help.js';
import { setTheme, THEMES } from './theme.js';
import { SETTINGS_SECTIONS } from '../views/settings/SettingsView.js';

/** Each settings section (its sub-navigation's entries) is a command of its own. */
const SETTINGS = SETTINGS_SECTIONS.map((s) => ({ label: `Settings: ${s.label}`, at: [s.id] }));

const CREATES = [
  { label: 'Create a box…', run: () => navigate(['boxes'], { new: '1' }), keywords: 'new box' },
  { label: 'Create a cron job…', run: () => navigate(['cron']), keywords: 'new schedule' },
  { label: 'Create a volume…', run: () => navigate(['volumes']), keywords: 'new disk' },
  { label: 'Create a policy…', run: () => navigate(['policies']), keywords: 'new egress http' },
  { label: 'Create a secret…', run: () => navigate(['secrets']), keywords: 'new token' },
];

/** Views (g + key), creates, settings sections, the shortcut help and the theme. */
export const GeneralCommands: CommandSource = ({ publish }) => {
  useEffect(() => {
    publish('general', [
      ...VIEWS.map((v, i) => ({ id: `go-${v.id}`, label: `Go to ${v.label}`, hint: `g ${v.key} · Alt+${i === 9 ? 0 : i + 1}`, run: () => navigate([v.id]) })),
      ...CREATES.map((c) => ({ id: `create-${c.label}`, ...c })),
      ...SETTINGS.map((s) => ({ id: `settings-${s.label}`, label: s.label, keywords: 'preferences', run: () => navigate(['settings', ...s.at]) })),
      { id: 'shortcuts', label: 'Keyboard shortcuts', hint: '?', keywords: 'help keys', run: openShortcutHelp },
      ...THEMES.map((t) => ({
        id: `theme-${t}`,
        label: t === 'system' ? 'Theme: follow the system' : `Theme: ${t}`,
        keywords: `theme appearance colors mode ${t === 'system' ? 'auto light dark' : t}`,
        run: () => setTheme(t),
      })),
    ]);
  }, [publish]);
  return null;
};
