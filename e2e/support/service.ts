import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startService, type ServiceHandle, type StartOptions } from '../../src-server/service.js';

export const RENDERER_DIR = path.resolve('out/renderer');
export const E2E_KEY = 'bxk_e2e_key_for_playwright_000000000000000';

export interface E2eService extends ServiceHandle {
  dataDir: string;
  /** fetch with the org key (test setup and checks, never from the page). */
  api(pathname: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
  /** True when the service answers this route (an area may not be installed yet). */
  has(method: string, pathname: string): Promise<boolean>;
}

/** The real service, in-process, on a fresh data dir and a free loopback port. */
export async function startE2eService(
  tuning: Record<string, unknown> = {},
  start: Pick<StartOptions, 'runtime' | 'preparation' | 'diskLowBytes'> = {},
): Promise<E2eService> {
  // One guest image for every test file (as `npm test` does), not a build per fresh data dir.
  process.env.BOX_IMAGE_CACHE ??= path.resolve('.data/image-cache');
  if (!fs.existsSync(path.join(RENDERER_DIR, 'index.html'))) {
    throw new Error('out/renderer/index.html is missing: run `npm run build` before the e2e tests.');
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'box-e2e-'));
  // warnings and errors reach the run's output: a slow or failed template build says so there
  const quiet = { info() {}, warn: (...a: unknown[]) => console.error(...a), error: (...a: unknown[]) => console.error(...a) };
  const svc = await startService({ dataDir, port: 0, apiKey: E2E_KEY, webUiDir: RENDERER_DIR, log: quiet, tuning, ...start });
  const api = (pathname: string, init: RequestInit & { json?: unknown } = {}) => {
    const headers = new Headers(init.headers);
    headers.set('authorization', `Bearer ${E2E_KEY}`);
    let body = init.body;
    if (init.json !== undefined) {
      body = JSON.stringify(init.json);
      headers.set('content-type', 'application/json');
    }
    return fetch(`${svc.url}${pathname}`, { ...init, headers, body });
  };
  const doc = (await (await api('/v1/openapi.json')).json()) as { paths?: Record<string, Record<string, unknown>> };
  const has = async (method: string, pathname: string) => Boolean(doc.paths?.[pathname]?.[method.toLowerCase()]);
  return {
    ...svc,
    dataDir,
    api,
    has,
    close: async () => {
      await svc.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Stops every box of the service (VM processes must not outlive a test file). */
export async function terminateAll(svc: E2eService) {
  const list = (await (await svc.api('/v1/boxes?limit=100')).json()) as { data?: Array<{ box_id: string; status: string }> };
  for (const b of list.data ?? []) if (b.status !== 'terminated') await svc.api(`/v1/boxes/${b.box_id}/terminate`, { method: 'POST', json: {} });
}
