import { app, clipboard, Menu, nativeImage, shell, Tray, type MenuItemConstructorOptions } from 'electron';
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
export function installMenus(host: ServiceHost, actions: TrayActions): { refresh(): void; hasTray: boolean } {
  let tray: Tray | null = null;
  const template = (): MenuItemConstructorOptions[] => [
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
    { label: 'Quit', role: 'quit' },
  ];
  const refresh = () => {
    const menu = Menu.buildFromTemplate(template());
    tray?.setContextMenu(menu);
    tray?.setImage(trayIcon(host.running));
    Menu.setApplicationMenu(
      Menu.buildFromTemplate([
        ...(process.platform === 'darwin' ? [{ role: 'appMenu' as const }] : []),
        { label: 'Service', submenu: template() },
        { role: 'editMenu' },
        { role: 'viewMenu' },
        { role: 'windowMenu' },
      ]),
    );
  };
  try {
    tray = new Tray(trayIcon(host.running));
    tray.setToolTip(app.getName());
    tray.on('click', actions.showWindow);
  } catch {
    tray = null; // some Linux desktops have no tray; the app menu still has everything
  }
  refresh();
  return { refresh, hasTray: tray !== null };
}
