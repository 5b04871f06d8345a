import { useSyncExternalStore } from 'react';

/**
 * Hash routes (`#/volumes/vol_…?path=a/b`): the service serves one index.html, and the
 * billing link the API hands out is `/#/settings/billing`.
 */
interface Route {
  segments: string[];
  params: URLSearchParams;
}

function parse(hash: string): Route {
  const raw = hash.replace(/^#\/?/, '');
  const [path, qs = ''] = raw.split('?');
  return { segments: path.split('/').filter(Boolean).map(decodeURIComponent), params: new URLSearchParams(qs) };
}

const subscribe = (cb: () => void) => {
  window.addEventListener('hashchange', cb);
  return () => window.removeEventListener('hashchange', cb);
};

export function useRoute(): Route {
  const hash = useSyncExternalStore(subscribe, () => window.location.hash);
  return parse(hash);
}

export function href(segments: string[], params?: Record<string, string | undefined>): string {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(params ?? {})) if (v) qs.set(k, v);
  const s = qs.toString();
  return `#/${segments.map(encodeURIComponent).join('/')}${s ? `?${s}` : ''}`;
}

export function navigate(segments: string[], params?: Record<string, string | undefined>) {
  window.location.hash = href(segments, params);
}
