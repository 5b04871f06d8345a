import { useEffect } from 'react';
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

export function SettingsView({ section }: { section?: string }) {
  useEffect(() => {
    if (section) document.getElementById(section)?.scrollIntoView({ block: 'start' });
  }, [section]);
  return (
    <div data-testid="view-settings">
      <PageHeader title="Settings" subtitle="Keys, credits, what the service runs on, what quitting does, and its log." />
      <div className="grid gap-4 xl:grid-cols-2">
        <div className="space-y-4">
          <ApiKeysPanel />
          <CreditsPanel />
          <QuitPanel />
          <IntegrationsPanel />
        </div>
        <div className="space-y-4">
          <StatusPanel />
          <TemplatesPanel />
          <div id="engines" className="space-y-4">
            <ModelSourcesPanel />
            <EnginesPanel />
          </div>
        </div>
      </div>
      <div className="mt-4">
        <ServiceLogPanel />
      </div>
    </div>
  );
}
