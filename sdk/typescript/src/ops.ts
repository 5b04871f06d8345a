import type { Answer, CallRest, JsonRouteKey } from '@box/contract/call';
import type { Http, RequestOptions } from './http.js';

/**
 * One JSON operation of the shared contract (packages/contract/src/routes.ts), by its key:
 * path parameters, query and body are checked against the contract's request schemas and
 * the answer is typed by its response schema, so a renamed route or field fails the SDK's
 * typecheck. Types only: nothing of the contract is in the published JavaScript.
 * @internal
 */
export function op<K extends JsonRouteKey>(
  http: Http,
  key: K,
  ...[args]: CallRest<K> extends [infer A] ? [A & Extra] : CallRest<K> extends [(infer A)?] ? [(A & Extra)?] : never
): Promise<Answer<K>> {
  const a = (args ?? {}) as {
    params?: Record<string, string | number>;
    query?: RequestOptions['query'];
    body?: unknown;
    headers?: Record<string, string>;
  } & Extra;
  const space = key.indexOf(' ');
  const path = key.slice(space + 1).replace(/:([A-Za-z_]+)/g, (_m, name: string) => {
    const v = a.params?.[name];
    if (v === undefined || v === '') throw new TypeError(`${key}: ${name} is missing`);
    return encodeURIComponent(String(v));
  });
  return http.json<Answer<K>>(key.slice(0, space), path, {
    query: a.query,
    json: a.body,
    headers: a.headers,
    idempotencyKey: a.idempotencyKey,
    signal: a.signal,
  });
}

interface Extra {
  idempotencyKey?: string;
  signal?: AbortSignal;
}
