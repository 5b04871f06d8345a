/**
 * The desktop bridge: every channel between renderer and main, typed end to end.
 * The preload exposes exactly these as `window.boxDesktop`; each call crosses one IPC
 * channel and comes back in one envelope (`IpcEnvelope`), never as a thrown IPC error.
 * No node imports here: the renderer type-checks against this file too.
 */
interface FileFilter {
  name: string;
  extensions: string[];
}

interface ServiceState {
  running: boolean;
  url: string | null;
  dataDir: string;
}

interface IpcChannels {
  /** Native open dialog; answers the chosen paths' names and bytes (null when cancelled). */
  'dialog:open-files': { args: { title?: string; filters?: FileFilter[] }; result: Array<{ name: string; bytes: Uint8Array }> | null };
  /** Native save dialog, then writes the given bytes there; answers the path or null. */
  'dialog:save-file': { args: { defaultName: string; bytes: Uint8Array }; result: string | null };
  'service:state': { args: void; result: ServiceState };
  /** Starts the stopped service on its port (the open page reconnects by itself); answers its state. */
  'service:start': { args: void; result: ServiceState };
  'shell:reveal-data-folder': { args: void; result: void };
  'clipboard:copy-api-key': { args: void; result: boolean };
}

export type IpcChannel = keyof IpcChannels;
export type IpcArgs<C extends IpcChannel> = IpcChannels[C]['args'];
export type IpcResult<C extends IpcChannel> = IpcChannels[C]['result'];

export type IpcEnvelope<T> = { ok: true; result: T } | { ok: false; error: { message: string } };

/** The single IPC channel name all calls travel on. */
export const IPC_CHANNEL = 'box-desktop:invoke';

export const IPC_CHANNEL_NAMES: IpcChannel[] = [
  'dialog:open-files',
  'dialog:save-file',
  'service:state',
  'service:start',
  'shell:reveal-data-folder',
  'clipboard:copy-api-key',
];

/** What `window.boxDesktop` looks like in the renderer (absent in the web UI). */
export interface DesktopBridge {
  invoke<C extends IpcChannel>(channel: C, args: IpcArgs<C>): Promise<IpcResult<C>>;
  platform: string;
}
