import { app, clipboard, Menu, nativeImage, shell, Tray, type MenuItemConstructorOptions } from 'electron';
import type { OnQuit } from '../../src-server/contract/service-admin.js';
import { describeOnQuit } from '../../src-server/quit/quit-plan.js';
import type { ServiceHost } from './service-host.js';

interface TrayActions {
  showWindow(): void;
  startService(): Promise<void>;
  stopService(): Promise<void>;
}

/** A 16x16 rounded square drawn in memory, so the tray needs no icon file. */
function trayIcon(running: boolean) {
  const size = 16;
  const buf = Buffer.alloc(size * size * 4);
  const [r, g, b] = running ? [52, 211, 153] : [148, 163, 184];
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const edge = (x < 2 || x > 13) && (y < 2 || y > 13);
      const i = (y * size + x) * 4;
      buf[i] = b; // BGRA
      buf[i + 1] = g;
      buf[i + 2] = r;
      buf[i + 3] = edge ? 0 : 255;
    }
  }
  return nativeImage.createFromBitmap(buf, { width: size, height: size });
}

/** Tray and application menu share one template: service start/stop, API key, data folder. */
export async function installMenus(host: ServiceHost, actions: TrayActions): Promise<{ refresh(): void; hasTray: boolean }> {
  let tray: Tray | null = null;
  const template = async (): Promise<MenuItemConstructorOptions[]> => [
    { label: 'Show Box Desktop', click: actions.showWindow },
    { type: 'separator' },
    { label: host.running ? `Service running on ${host.url}` : 'Service stopped', enabled: false },
    { label: 'Start service', enabled: !host.running, click: () => void actions.startService().then(refresh) },
    { label: 'Stop service', enabled: host.running, click: () => void actions.stopService().then(refresh) },
    { type: 'separator' },
    {
      label: 'Copy API key',
      click: () => {
        const key = host.readApiKey();
        if (key) void clipboard.writeText(key);
      },
    },
    { label: 'Reveal data folder', click: () => void shell.openPath(host.dataDir) },
    { type: 'separator' },
    ...(await quitItems(host, () => refresh())),
  ];
  const refresh = async () => {
    const items = await template();
    const menu = Menu.buildFromTemplate(items);
    tray?.setContextMenu(menu);
    tray?.setImage(trayIcon(host.running));
    tray?.setToolTip(await tooltip(host));
    Menu.setApplicationMenu(
      Menu.buildFromTemplate([
        ...(process.platform === 'darwin' ? [{ role: 'appMenu' as const }] : []),
        { label: 'Service', submenu: items },
        { role: 'editMenu' },
        { role: 'viewMenu' },
        { role: 'windowMenu' },
      ]),
    );
  };
  try {
    tray = new Tray(trayIcon(host.running));
    tray.setToolTip(await tooltip(host));
    tray.on('click', actions.showWindow);
  } catch {
    tray = null; // some Linux desktops have no tray; the app menu still has everything
  }
  await refresh();
  // The quit label counts running boxes: keep it current (a cheap database read).
  setInterval(refresh, 10_000).unref();
  return { refresh, hasTray: tray !== null };
}

const CHOICES: { value: OnQuit; label: string }[] = [
  { value: 'ask', label: 'Ask' },
  { value: 'stop_boxes', label: 'Put running boxes to sleep' },
  { value: 'leave_running', label: 'Leave boxes running' },
];

/** The tray says what quitting does: the Quit label with the plan, and the setting as radio items. */
async function quitItems(host: ServiceHost, refresh: () => void): Promise<MenuItemConstructorOptions[]> {
  const quit = host.quit;
  if (!quit) return [{ label: 'Quit', role: 'quit' }];
  const plan = await quit.plan('desktop');
  const current = (await quit.settings.get()).on_quit;
  const n = plan.running === 1 ? '1 running box' : `${plan.running} running boxes`;
  const label =
    plan.action === 'stop_boxes'
      ? `Quit (puts ${n} to sleep)`
      : plan.action === 'leave_running'
        ? `Quit (leaves ${n} running)`
        : plan.action === 'ask'
          ? 'Quit…'
          : 'Quit';
  return [
    {
      label: 'When quitting',
      submenu: CHOICES.map((c) => ({
        label: c.label,
        type: 'radio' as const,
        checked: current === c.value,
        click: async () => {
          await quit.settings.set({ on_quit: c.value });
          refresh();
        },
      })),
    },
    { label, role: 'quit' },
  ];
}

async function tooltip(host: ServiceHost): Promise<string> {
  const quit = host.quit;
  if (!quit) return `${app.getName()}: service stopped`;
  const running = (await quit.running()).length;
  return `${app.getName()}: ${running === 1 ? '1 box' : `${running} boxes`} running; on quit, ${describeOnQuit((await quit.settings.get()).on_quit, 'desktop')}`;
}
