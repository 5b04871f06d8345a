import { onlineManager } from '@tanstack/react-query';
import { useSyncExternalStore } from 'react';

/**
 * Whether the service answers: the one place the UI asks (issue 38). Two inputs: a health
 * poll (any HTTP answer of `GET /v1/status` counts, a 401 too: the service is there), and
 * every request of the renderer (`apiFetch` reports a network failure and any answer).
 * While the service is down react-query is told it is offline (`onlineManager`): queries
 * pause where they are (keeping their data) instead of failing, mutations fail at once, and
 * when the service is back every paused or stale query is retried and refetched, so an open
 * page recovers without a reload.
 */
type Connection = 'up' | 'down';

interface ConnectionState {
  status: Connection;
  /** When the service was last seen down (ms), or null while up. */
  since: number | null;
  /** When the next health check runs (ms), while down. */
  nextCheckAt: number | null;
}

/** Health poll while up (requests in between report failures sooner). */
const UP_POLL_MS = 5000;
/** Backoff while down: first retry, factor, ceiling. */
const DOWN_FIRST_MS = 500;
const DOWN_MAX_MS = 5000;

let state: ConnectionState = { status: 'up', since: null, nextCheckAt: null };
const listeners = new Set<() => void>();
let timer: ReturnType<typeof setTimeout> | undefined;
let backoff = DOWN_FIRST_MS;
let checking = false;

function set(next: Partial<ConnectionState>) {
  state = { ...state, ...next };
  listeners.forEach((l) => l());
}

/** A request of the renderer could not reach the service (no HTTP answer at all). */
export function reportUnreachable() {
  if (state.status === 'down') return;
  backoff = DOWN_FIRST_MS;
  set({ status: 'down', since: Date.now() });
  onlineManager.setOnline(false);
  schedule(backoff);
}

/** The service answered something (any status). */
export function reportReachable() {
  if (state.status === 'up') return;
  set({ status: 'up', since: null, nextCheckAt: null });
  onlineManager.setOnline(navigator.onLine !== false);
  schedule(UP_POLL_MS);
}

function schedule(ms: number) {
  clearTimeout(timer);
  if (state.status === 'down') set({ nextCheckAt: Date.now() + ms });
  timer = setTimeout(() => void check(), ms);
}

/** One health check; schedules the next (backoff while down). */
export async function check(): Promise<void> {
  if (checking) return;
  checking = true;
  try {
    await fetch('/v1/status', { credentials: 'same-origin', cache: 'no-store', signal: AbortSignal.timeout(4000) });
    reportReachable();
    if (state.status === 'up') schedule(UP_POLL_MS);
  } catch {
    if (state.status === 'up') reportUnreachable();
    else {
      backoff = Math.min(DOWN_MAX_MS, backoff * 2);
      schedule(backoff);
    }
  } finally {
    checking = false;
  }
}

/** A fetch failure that is the network's (TypeError: "Failed to fetch"), not an abort or an HTTP answer. */
export const isNetworkError = (e: unknown) => e instanceof TypeError;

let started = false;
/** Starts the health poll and ties react-query's notion of "online" to it (once, at boot). */
export function startConnectionWatch() {
  if (started) return;
  started = true;
  // react-query's own online listener (browser online/offline events) would override ours.
  onlineManager.setEventListener((setOnline) => {
    const browser = () => setOnline(navigator.onLine && state.status === 'up');
    window.addEventListener('online', browser);
    window.addEventListener('offline', browser);
    return () => {
      window.removeEventListener('online', browser);
      window.removeEventListener('offline', browser);
    };
  });
  schedule(UP_POLL_MS);
}

const subscribe = (l: () => void) => {
  listeners.add(l);
  return () => listeners.delete(l);
};

export const useConnection = (): ConnectionState => useSyncExternalStore(subscribe, () => state);

/** True while the service is reachable; mutating actions are disabled otherwise. */
export const useServiceUp = () => useConnection().status === 'up';

/** The tooltip of an action disabled because the service is down. */
export const SERVICE_DOWN_HINT = 'The service is stopped: start it again to do this.';
