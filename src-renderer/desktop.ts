import type { DesktopBridge } from '../src-main/shared/ipc-contract.js';

declare global {
  interface Window {
    boxDesktop?: DesktopBridge;
  }
}

/** The Electron bridge when running in the desktop app; undefined in the web UI. */
export const desktop = (): DesktopBridge | undefined => window.boxDesktop;
