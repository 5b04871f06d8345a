// A stand-in for Electron's main-process API, so that the desktop app's bundle
// (out/main/index.js) runs under plain Node in e2e/desktop-bundle.spec.ts: Electron itself
// cannot run on the CI machines (no display, no binary download). What the app does with
// it is printed as JSON lines on stdout. Lines on stdin act as the user or the page would:
// `quit` quits as the menu does; `ipc <page url> <channel> <args JSON>` invokes the IPC
// handler as a page at that URL would. Dialogs answer with BOX_STUB_DIALOG_RESPONSE.
import { EventEmitter } from 'node:events';
import path from 'node:path';

const say = (event, data = {}) => process.stdout.write(`${JSON.stringify({ event, ...data })}\n`);
const appEvents = new EventEmitter();

export const app = {
  requestSingleInstanceLock: () => true,
  getPath: (name) => path.join(process.env.BOX_STUB_HOME ?? '/nonexistent', name),
  getName: () => 'Box Desktop',
  on(event, fn) {
    appEvents.on(event, fn);
    return app;
  },
  whenReady: () => Promise.resolve(),
  /** Electron's order: before-quit (which may prevent it), then the process ends. */
  quit() {
    let prevented = false;
    appEvents.emit('before-quit', { preventDefault: () => (prevented = true) });
    if (prevented) return;
    say('quit');
    setImmediate(() => process.exit(0));
  },
  exit(code) {
    say('exit', { code });
    process.exit(code);
  },
};

export class BrowserWindow extends EventEmitter {
  constructor(options) {
    super();
    say('window', { title: options.title, preload: options.webPreferences?.preload, sandbox: options.webPreferences?.sandbox });
    this.webContents = Object.assign(new EventEmitter(), { setWindowOpenHandler() {}, session: { setPermissionRequestHandler() {} } });
  }
  loadURL(url) {
    say('loadURL', { url });
    return Promise.resolve();
  }
  isDestroyed = () => false;
  isMinimized = () => false;
  restore() {}
  show() {}
  focus() {}
}

export const Menu = {
  buildFromTemplate: (items) => ({ items }),
  setApplicationMenu: (menu) => say('menu', { labels: menu.items.map((i) => i.label ?? i.role) }),
};

export class Tray {
  constructor() {
    say('tray');
  }
  setToolTip(text) {
    say('tooltip', { text });
  }
  setContextMenu() {}
  setImage() {}
  on() {}
}

export const nativeImage = { createFromBitmap: () => ({}) };
const ipcHandlers = new Map();
export const ipcMain = {
  handle(channel, fn) {
    ipcHandlers.set(channel, fn);
    say('ipc', { channel });
  },
};
export const dialog = {
  async showMessageBox(a, b) {
    const o = b ?? a;
    say('dialog', { message: o.message, buttons: o.buttons });
    return { response: Number(process.env.BOX_STUB_DIALOG_RESPONSE ?? 2), checkboxChecked: false };
  },
  showErrorBox: (title, message) => say('error', { title, message }),
};
export const shell = { openExternal: async () => {}, openPath: async () => '' };
export const clipboard = { writeText: (text) => say('clipboard', { text }) };

process.stdin.setEncoding('utf8');
process.stdin.on('data', (text) => {
  for (const line of text.split('\n')) {
    if (line === 'quit') app.quit();
    const ipc = /^ipc (\S+) (\S+) (.*)$/.exec(line);
    if (!ipc) continue;
    const [, url, channel, args] = ipc;
    const event = { senderFrame: { url }, sender: {} };
    void ipcHandlers
      .get('box-desktop:invoke')?.(event, channel, JSON.parse(args))
      .then((envelope) => say('ipc-result', { channel, envelope }));
  }
});
