import { BrowserWindow, shell } from 'electron';

/**
 * The one app window. It shows the renderer as served by the in-process service (same
 * origin as the API, so the session cookie works) and may never leave that origin:
 * other links open in the system browser, new windows are denied.
 */
export function createMainWindow(preloadPath: string, allowedOrigin: () => string | null): BrowserWindow {
  const win = new BrowserWindow({
    width: 1280,
    height: 820,
    minWidth: 900,
    minHeight: 560,
    backgroundColor: '#0b0f17',
    title: 'Box Desktop',
    show: false,
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      spellcheck: false,
    },
  });
  win.once('ready-to-show', () => win.show());

  const isInternal = (url: string) => {
    const origin = allowedOrigin();
    try {
      return origin !== null && new URL(url).origin === origin;
    } catch {
      return false;
    }
  };
  const openOutside = (url: string) => {
    if (/^https?:\/\//.test(url)) void shell.openExternal(url);
  };
  win.webContents.setWindowOpenHandler(({ url }) => {
    if (!isInternal(url)) openOutside(url);
    return { action: 'deny' };
  });
  win.webContents.on('will-navigate', (event, url) => {
    if (isInternal(url)) return;
    event.preventDefault();
    openOutside(url);
  });
  win.webContents.on('will-redirect', (event, url) => {
    if (!isInternal(url)) event.preventDefault();
  });
  // No webviews, no permission prompts beyond the clipboard the renderer itself writes.
  win.webContents.on('will-attach-webview', (event) => event.preventDefault());
  win.webContents.session.setPermissionRequestHandler((_wc, permission, done) => done(permission === 'clipboard-sanitized-write'));
  return win;
}
