import { ipcMain, type IpcMainInvokeEvent } from 'electron';
import { IPC_CHANNEL, IPC_CHANNEL_NAMES, type IpcArgs, type IpcChannel, type IpcEnvelope, type IpcResult } from '../shared/ipc-contract.js';

export type IpcHandlers = { [C in IpcChannel]: (args: IpcArgs<C>, event: IpcMainInvokeEvent) => IpcResult<C> | Promise<IpcResult<C>> };

/**
 * The one IPC wrapper: every call arrives on one channel, is checked against the typed
 * channel list and the sender's origin, and answers `{ok, result}` or `{ok:false, error}`.
 */
export function registerIpc(handlers: IpcHandlers, trustedOrigin: () => string | null) {
  ipcMain.handle(IPC_CHANNEL, async (event, channel: unknown, args: unknown): Promise<IpcEnvelope<unknown>> => {
    try {
      const origin = trustedOrigin();
      const sender = event.senderFrame?.url ? new URL(event.senderFrame.url).origin : null;
      if (!origin || sender !== origin) throw new Error('IPC refused: the caller is not the app window.');
      if (typeof channel !== 'string' || !IPC_CHANNEL_NAMES.includes(channel as IpcChannel)) {
        throw new Error(`Unknown IPC channel ${String(channel)}`);
      }
      const handler = handlers[channel as IpcChannel] as (a: unknown, e: IpcMainInvokeEvent) => unknown;
      return { ok: true, result: await handler(args, event) };
    } catch (e) {
      return { ok: false, error: { message: e instanceof Error ? e.message : String(e) } };
    }
  });
}
