import { BrowserWindow, clipboard, dialog, shell } from 'electron';
import fs from 'node:fs';
import path from 'node:path';
import type { IpcHandlers } from './ipc.js';
import type { ServiceHost } from './service-host.js';

/** Biggest file the native open dialog hands to the renderer in one message. */
const MAX_DIALOG_FILE_BYTES = 512 * 1024 * 1024;

/** `start`: starts the service (and updates the tray), as the tray's "Start service" does. */
export function ipcHandlers(host: ServiceHost, start: () => Promise<void>): IpcHandlers {
  const windowOf = (e: Electron.IpcMainInvokeEvent) => BrowserWindow.fromWebContents(e.sender) ?? undefined;
  return {
    'dialog:open-files': async (args, event) => {
      const win = windowOf(event);
      const opts: Electron.OpenDialogOptions = { title: args.title, filters: args.filters, properties: ['openFile', 'multiSelections'] };
      const picked = win ? await dialog.showOpenDialog(win, opts) : await dialog.showOpenDialog(opts);
      if (picked.canceled) return null;
      return picked.filePaths.map((p) => {
        if (fs.statSync(p).size > MAX_DIALOG_FILE_BYTES) throw new Error(`${path.basename(p)} is too large for the dialog; drag it onto the browser instead.`);
        return { name: path.basename(p), bytes: new Uint8Array(fs.readFileSync(p)) };
      });
    },
    'dialog:save-file': async (args, event) => {
      const win = windowOf(event);
      const opts: Electron.SaveDialogOptions = { defaultPath: path.basename(args.defaultName) };
      const picked = win ? await dialog.showSaveDialog(win, opts) : await dialog.showSaveDialog(opts);
      if (picked.canceled || !picked.filePath) return null;
      fs.writeFileSync(picked.filePath, args.bytes);
      return picked.filePath;
    },
    'service:state': () => ({ running: host.running, url: host.url, dataDir: host.dataDir }),
    'service:start': async () => {
      await start();
      return { running: host.running, url: host.url, dataDir: host.dataDir };
    },
    'shell:reveal-data-folder': async () => {
      const err = await shell.openPath(host.dataDir);
      if (err) throw new Error(err);
    },
    'clipboard:copy-api-key': () => {
      const key = host.readApiKey();
      if (!key) return false;
      void clipboard.writeText(key);
      return true;
    },
  };
}
