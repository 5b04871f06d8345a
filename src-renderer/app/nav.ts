/** The views, their shortcut (g then key, or Alt+digit) and their sidebar order. */
export const VIEWS = [
  { id: 'boxes', label: 'Boxes', key: 'b', icon: '▣' },
  { id: 'cron', label: 'Cron jobs', key: 'c', icon: '◷' },
  { id: 'volumes', label: 'Volumes', key: 'v', icon: '⛁' },
  { id: 'files', label: 'Files', key: 'f', icon: '❐' },
  { id: 'policies', label: 'Policies', key: 'p', icon: '◆' },
  { id: 'secrets', label: 'Secrets', key: 'k', icon: '⚿' },
  { id: 'ssh', label: 'SSH', key: 'h', icon: '⌁' },
  { id: 'playground', label: 'Playground', key: 'i', icon: '✦' },
  { id: 'settings', label: 'Settings', key: 's', icon: '⚙' },
  { id: 'images', label: 'Images', key: 'm', icon: '◫' },
  { id: 'chat', label: 'Chat', key: 't', icon: '✉' },
] as const;

export type ViewId = (typeof VIEWS)[number]['id'];
