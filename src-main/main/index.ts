import { app, BrowserWindow, dialog } from 'electron';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ipcHandlers } from './handlers.js';
import { beforeQuit } from './quit-flow.js';
import { registerIpc } from './ipc.js';
import { ServiceHost } from './service-host.js';
import { onStopSignals } from '../../src-server/quit/stop-signals.js';
import { installMenus } from './tray.js';
import { createMainWindow } from './window.js';

/**
 * Electron main: runs the whole service in-process on loopback, and shows the renderer it
 * serves. One instance per user: a second launch focuses the first window.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const PRELOAD = path.join(here, '../preload/index.cjs');
const WEB_UI = path.join(here, '../renderer');
const STOPPED_PAGE =
  '<body style="background:#0c1018;color:#a3adc5;font:14px system-ui;display:grid;place-items:center;height:100vh;margin:0"><p>The service is stopped. Start it again from the tray or the Service menu.</p></body>';

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  const host = new ServiceHost(process.env.BOX_DATA_DIR ?? path.join(app.getPath('userData'), 'data'), WEB_UI);
  let win: BrowserWindow | null = null;
  let menus: { refresh(): void; hasTray: boolean } | null = null;

  const showWindow = () => {
    if (!win || win.isDestroyed()) {
      win = createMainWindow(PRELOAD, () => host.origin);
      if (host.running) void host.loginUrl().then((u) => win?.loadURL(u));
    }
    if (win.isMinimized()) win.restore();
    win.show();
    win.focus();
  };

  const startService = async () => {
    await host.start();
    if (win && !win.isDestroyed()) await win.loadURL(await host.loginUrl());
  };

  app.on('second-instance', showWindow);
  app.on('activate', showWindow);
  // With a tray, the service keeps running when the window closes; without one, closing quits.
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin' && !menus?.hasTray) app.quit();
  });
  // Quitting follows the on_quit setting, or asks (with "remember") when boxes run.
  let quitting = false;
  let asking = false;
  app.on('before-quit', async (event) => {
    if (quitting || !host.running) return;
    event.preventDefault();
    if (asking) return;
    asking = true;
    const show = (o: Electron.MessageBoxOptions) => (win && !win.isDestroyed() ? dialog.showMessageBox(win, o) : dialog.showMessageBox(o));
    void beforeQuit(host.quit!, show)
      .then(async (go) => {
        if (!go) return;
        quitting = true;
        await host.stop();
      })
      .catch((e: unknown) => dialog.showErrorBox('Quitting', e instanceof Error ? e.message : String(e)))
      .finally(() => {
        asking = false;
        if (quitting) app.quit();
        else menus?.refresh();
      });
  });

  // A stop signal (systemd, a terminal's Ctrl+C, `npm start` forwarding one) cannot ask: it
  // follows the headless rule (on_quit, "ask" meaning sleep), once per burst of signals
  // (stop-signals.ts); a deliberate second one later leaves the boxes running.
  onStopSignals({
    stop: () => {
      quitting = true;
      void (async () => {
        const quit = host.quit;
        if (quit && (await quit.plan('headless')).action === 'stop_boxes') await quit.stopBoxes();
        await host.stop();
      })()
        .catch(() => {})
        .finally(() => app.exit(0));
    },
    again: () => app.exit(130),
  });

  // The page's "Start service" (its banner, while the service is down): no reload, the page reconnects.
  const startFromPage = async () => {
    await host.start();
    menus?.refresh();
  };
  registerIpc(ipcHandlers(host, startFromPage), () => host.origin);
  app
    .whenReady()
    .then(async () => {
      await host.start();
      menus = await installMenus(host, {
        showWindow,
        startService,
        stopService: async () => {
          await host.stop();
          // The page cannot reach the service any more: say so instead of failing requests.
          if (win && !win.isDestroyed()) await win.loadURL(`data:text/html,${encodeURIComponent(STOPPED_PAGE)}`);
        },
      });
      showWindow();
    })
    .catch((e: unknown) => {
      dialog.showErrorBox('Box Desktop could not start', e instanceof Error ? e.message : String(e));
      app.exit(1);
    });
}
