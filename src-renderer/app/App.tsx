import { useCallback, useEffect, useState, type ReactNode } from 'react';
import { useWhoami } from '../api/hooks/identity.js';
import { ApiError } from '../api/client.js';
import { BoxesView } from '../views/boxes/BoxesView.js';
import { ChatView } from '../views/chat/ChatView.js';
import { CronView } from '../views/cron/CronView.js';
import { FilesView } from '../views/files/FilesView.js';
import { ImagesView } from '../views/images/ImagesView.js';
import { PlaygroundView } from '../views/playground/PlaygroundView.js';
import { PoliciesView } from '../views/policies/PoliciesView.js';
import { SecretsView } from '../views/secrets/SecretsView.js';
import { SettingsView } from '../views/settings/SettingsView.js';
import { SshView } from '../views/ssh/SshView.js';
import { Toaster } from '../ui/toast.js';
import { VolumesView } from '../views/volumes/VolumesView.js';
import { CommandPalette } from './CommandPalette.js';
import { VIEWS, type ViewId } from './nav.js';
import { navigate, useRoute } from './router.js';
import { ShortcutHelp, openShortcutHelp } from './shortcut-help.js';
import { SignIn } from './SignIn.js';
import { useGlobalShortcuts } from './shortcuts.js';
import { ServiceBanner } from './ServiceBanner.js';
import { Sidebar } from './Sidebar.js';

export function App() {
  const route = useRoute();
  const who = useWhoami();
  const [palette, setPalette] = useState(false);
  const openPalette = useCallback(() => setPalette(true), []);
  useGlobalShortcuts(openPalette, openShortcutHelp);
  const atSignIn = route.segments[0] === 'signin';
  // Signed in already (e.g. an old link clicked again in a signed-in browser): go on to the app.
  useEffect(() => {
    if (atSignIn && who.isSuccess) navigate(['boxes']);
  }, [atSignIn, who.isSuccess]);

  const signedOut = who.error instanceof ApiError && who.error.status === 401;
  if (signedOut || (atSignIn && !who.isSuccess)) {
    const reason = route.params.get('reason') ?? (signedOut && /signed out/.test(who.error?.message ?? '') ? 'expired' : undefined);
    return <SignIn reason={reason} />;
  }

  const view = (VIEWS.find((v) => v.id === route.segments[0])?.id ?? 'boxes') as ViewId;
  const [, a, b] = route.segments;
  const pages: Record<ViewId, () => ReactNode> = {
    boxes: () => <BoxesView boxId={a} tab={b} />,
    cron: () => <CronView boxId={route.params.get('box') ?? undefined} />,
    volumes: () => <VolumesView volumeId={a} path={route.params.get('path') ?? ''} />,
    images: () => <ImagesView />,
    files: () => <FilesView boxId={a} path={route.params.get('path') ?? undefined} />,
    policies: () => <PoliciesView policyId={a} />,
    secrets: () => <SecretsView />,
    ssh: () => <SshView />,
    playground: () => <PlaygroundView />,
    chat: () => <ChatView />,
    settings: () => <SettingsView section={a} />,
  };
  return (
    <div className="flex min-h-full">
      <Sidebar current={view} onPalette={openPalette} />
      <main className="min-w-0 flex-1 px-4 py-4 lg:px-8 lg:py-6" key={view}>
        <ServiceBanner />
        {pages[view]()}
      </main>
      {palette && <CommandPalette onClose={() => setPalette(false)} />}
      <ShortcutHelp />
      <Toaster />
    </div>
  );
}
