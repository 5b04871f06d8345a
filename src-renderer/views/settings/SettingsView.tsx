import { useEffect, type ReactNode } from 'react';
import { href } from '../../app/router.js';
import { PageHeader } from '../../ui/states.js';
import { ApiKeysPanel } from './ApiKeysPanel.js';
import { CreditsPanel } from './CreditsPanel.js';
import { EnginesPanel } from './EnginesPanel.js';
import { IntegrationsPanel } from './IntegrationsPanel.js';
import { ModelSourcesPanel } from './ModelSourcesPanel.js';
import { QuitPanel } from './QuitPanel.js';
import { ServiceLogPanel } from './ServiceLogPanel.js';
import { StatusPanel } from './StatusPanel.js';
import { TemplatesPanel } from './TemplatesPanel.js';

/**
 * Settings in sections, one at a time, with a sub-navigation (issue 38, item 5: one page
 * of every panel was 2,545 px tall). Each section is a route (`#/settings/<id>`); the
 * older anchors (`billing`, `quit`, `logs`, `models`) open the section that holds them
 * and scroll to it.
 */
export const SETTINGS_SECTIONS: { id: string; label: string; also: string[]; body: () => ReactNode }[] = [
  {
    id: 'general',
    label: 'Keys & credits',
    also: ['keys', 'billing', 'status'],
    body: () => (
      <>
        <ApiKeysPanel />
        <CreditsPanel />
        <StatusPanel />
      </>
    ),
  },
  { id: 'integrations', label: 'Integrations (MCP)', also: ['mcp'], body: () => <IntegrationsPanel /> },
  {
    id: 'engines',
    label: 'Engines & models',
    also: ['models'],
    body: () => (
      <>
        <ModelSourcesPanel />
        <EnginesPanel />
      </>
    ),
  },
  { id: 'templates', label: 'Warm templates', also: [], body: () => <TemplatesPanel /> },
  {
    id: 'service',
    label: 'Quitting & log',
    also: ['quit', 'logs'],
    body: () => (
      <>
        <QuitPanel />
        <ServiceLogPanel />
      </>
    ),
  },
];

export function SettingsView({ section }: { section?: string }) {
  const current = SETTINGS_SECTIONS.find((s) => s.id === section || s.also.includes(section ?? '')) ?? SETTINGS_SECTIONS[0]!;
  useEffect(() => {
    if (section && section !== current.id) document.getElementById(section)?.scrollIntoView({ block: 'start' });
  }, [section, current.id]);
  return (
    <div data-testid="view-settings">
      <PageHeader title="Settings" subtitle="Keys, credits, MCP clients, engines, templates, what quitting does, and the service log." />
      <nav aria-label="Settings sections" className="mb-4 flex flex-wrap gap-1 border-b border-ink-700" data-testid="settings-nav">
        {SETTINGS_SECTIONS.map((s) => (
          <a
            key={s.id}
            href={href(['settings', s.id])}
            aria-current={s.id === current.id ? 'page' : undefined}
            data-testid={`settings-tab-${s.id}`}
            className={`-mb-px border-b-2 px-3 py-2 whitespace-nowrap ${s.id === current.id ? 'border-accent-400 text-ink-100' : 'border-transparent text-ink-300 hover:text-ink-100'}`}
          >
            {s.label}
          </a>
        ))}
      </nav>
      <div className="max-w-5xl space-y-4" data-testid={`settings-section-${current.id}`}>
        {current.body()}
      </div>
    </div>
  );
}
