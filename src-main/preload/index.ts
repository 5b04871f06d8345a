import { contextBridge, ipcRenderer } from 'electron';
import { IPC_CHANNEL, IPC_CHANNEL_NAMES, type DesktopBridge, type IpcChannel, type IpcEnvelope } from '../shared/ipc-contract.js';

/**
 * Sandboxed preload: exposes one typed `invoke` over one IPC channel. Unknown channels
 * are refused here, before they reach main; errors come back as envelopes and are
 * rethrown in the renderer as plain Errors.
 */
const bridge: DesktopBridge = {
  platform: process.platform,
  async invoke(channel, args) {
    if (!IPC_CHANNEL_NAMES.includes(channel as IpcChannel)) throw new Error(`Unknown desktop channel ${channel}`);
    const env = (await ipcRenderer.invoke(IPC_CHANNEL, channel, args)) as IpcEnvelope<never>;
    if (!env.ok) throw new Error(env.error.message);
    return env.result;
  },
};

contextBridge.exposeInMainWorld('boxDesktop', bridge);
