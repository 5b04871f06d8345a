import { useCallback, useState, type ReactNode } from 'react';
import { useWhoami } from '../api/hooks/identity.js';
import { ApiError } from '../api/client.js';
import { BoxesView } from '../views/boxes/BoxesView.js';
import { CronView } from '../views/cron/CronView.js';
import { FilesView } from '../views/files/FilesView.js';
import { ImagesView } from '../views/images/ImagesView.js';
import { PlaygroundView } from '../views/playground/PlaygroundView.js';
import { PoliciesView } from '../views/policies/PoliciesView.js';
import { SettingsView } from '../views/settings/SettingsView.js';
import { VolumesView } from '../views/volumes/VolumesView.js';
import { CommandPalette } from './CommandPalette.js';
import { VIEWS, type ViewId } from './nav.js';
import { useRoute } from './router.js';
import { useGlobalShortcuts } from './shortcuts.js';
import { Sidebar } from './Sidebar.js';

export function App() {
  const route = useRoute();
  const who = useWhoami();
  const [palette, setPalette] = useState(false);
  const openPalette = useCallback(() => setPalette(true), []);
  useGlobalShortcuts(openPalette);

  if (who.error instanceof ApiError && who.error.status === 401) return <SignedOut message={who.error.message} />;

  const view = (VIEWS.find((v) => v.id === route.segments[0])?.id ?? 'boxes') as ViewId;
  const [, a, b] = route.segments;
  const pages: Record<ViewId, () => ReactNode> = {
    boxes: () => <BoxesView boxId={a} tab={b} />,
    cron: () => <CronView boxId={route.params.get('box') ?? undefined} />,
    volumes: () => <VolumesView volumeId={a} path={route.params.get('path') ?? ''} />,
    images: () => <ImagesView />,
    files: () => <FilesView boxId={a} path={route.params.get('path') ?? '/'} />,
    policies: () => <PoliciesView policyId={a} />,
    playground: () => <PlaygroundView />,
    settings: () => <SettingsView section={a} />,
  };
  return (
    <div className="flex min-h-full">
      <Sidebar current={view} onPalette={openPalette} />
      <main className="min-w-0 flex-1 px-8 py-6" key={view}>
        {pages[view]()}
      </main>
      {palette && <CommandPalette onClose={() => setPalette(false)} />}
    </div>
  );
}

function SignedOut({ message }: { message: string }) {
  return (
    <div className="grid h-full place-items-center" data-testid="signed-out">
      <div className="panel max-w-md p-6 text-center">
        <h1 className="mb-2 font-semibold">Not signed in</h1>
        <p className="text-ink-300">{message}</p>
        <p className="mt-3 text-ink-400">
          Open the one-time login link that <code>npm start</code> printed, or restart the desktop app.
        </p>
      </div>
    </div>
  );
}
