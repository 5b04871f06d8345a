import { beforeAll, expect, it, vi } from 'vitest';
import type { DesktopBridge } from '../shared/ipc-contract.js';

// The sandboxed preload against a stand-in for Electron's renderer-side API: what it exposes
// to the page, and what it lets through to the one IPC channel.
const exposed: Record<string, unknown> = {};
const invoke = vi.fn();
vi.mock('electron', () => ({
  contextBridge: { exposeInMainWorld: (name: string, api: unknown) => (exposed[name] = api) },
  ipcRenderer: { invoke: (...a: unknown[]) => invoke(...a) },
}));

let bridge: DesktopBridge;
beforeAll(async () => {
  await import('./index.js');
  bridge = exposed.boxDesktop as DesktopBridge;
});

it('exposes one bridge, boxDesktop, with invoke and the platform only', () => {
  expect(Object.keys(exposed)).toEqual(['boxDesktop']);
  expect(Object.keys(bridge).sort()).toEqual(['invoke', 'platform']);
  expect(bridge.platform).toBe(process.platform);
});

it('sends a known channel over the one IPC channel and unwraps its envelope', async () => {
  invoke.mockResolvedValueOnce({ ok: true, result: { running: true, url: 'http://127.0.0.1:1', dataDir: '/d' } });
  await expect(bridge.invoke('service:state', undefined)).resolves.toEqual({ running: true, url: 'http://127.0.0.1:1', dataDir: '/d' });
  expect(invoke).toHaveBeenLastCalledWith('box-desktop:invoke', 'service:state', undefined);
  invoke.mockResolvedValueOnce({ ok: false, error: { message: 'IPC refused: the caller is not the app window.' } });
  await expect(bridge.invoke('clipboard:copy-api-key', undefined)).rejects.toThrow('IPC refused: the caller is not the app window.');
});

it('refuses a channel outside the contract before it reaches the main process', async () => {
  invoke.mockClear();
  await expect(bridge.invoke('fs:read' as never, undefined as never)).rejects.toThrow('Unknown desktop channel fs:read');
  expect(invoke).not.toHaveBeenCalled();
});
