import type { z } from 'zod';
import type { ROUTES } from './routes.js';

/**
 * The typed client of the contract, shared by the CLI and the renderer. Types only come
 * from `ROUTES` (nothing of the table is bundled): an operation is named by its key,
 * `call('GET /v1/boxes/:box_id', { params: { box_id } })`, its path parameters, query and
 * body are checked against the contract's request schemas (`z.input`), and the answer is
 * typed as the route's response schema (`z.output`), the same one the server's answers are
 * checked against under tests. Each client supplies the transport (auth, base URL, errors).
 */
type Routes = typeof ROUTES;
type RouteKey = keyof Routes;

/** Operations answering JSON (streams and downloads go through the clients' raw fetch). */
export type JsonRouteKey = { [K in RouteKey]: Routes[K] extends { response: z.ZodType } ? K : never }[RouteKey];

type PathOf<K extends string> = K extends `${string} ${infer P}` ? P : never;
type ParamNames<P extends string> = P extends `${string}:${infer N}/${infer R}` ? N | ParamNames<R> : P extends `${string}:${infer N}` ? N : never;
type QueryValue = string | number | boolean | null | undefined;

/** The JSON answer of an operation. */
export type Answer<K extends RouteKey> = Routes[K] extends { response: infer S extends z.ZodType } ? z.output<S> : never;
/** The JSON body an operation takes. */
export type BodyOf<K extends RouteKey> = Routes[K] extends { body: infer S extends z.ZodType } ? z.input<S> : Record<string, never>;
/** Query fields of an operation (sent as text; numbers and booleans are written out). */
type QueryOf<K extends RouteKey> = Routes[K] extends { query: infer S extends z.ZodType } ? { [F in keyof z.input<S>]?: QueryValue } : never;

type ParamsArg<K extends RouteKey> = [ParamNames<PathOf<K>>] extends [never]
  ? { params?: undefined }
  : { params: Record<ParamNames<PathOf<K>>, string | number> };

export type CallArgs<K extends RouteKey> = ParamsArg<K> & {
  query?: QueryOf<K>;
  body?: BodyOf<K>;
  headers?: Record<string, string>;
  signal?: AbortSignal;
};

/** The arguments after the key: optional when the operation has no path parameters. */
export type CallRest<K extends RouteKey> = ParamsArg<K> extends { params?: undefined } ? [CallArgs<K>?] : [CallArgs<K>];

/** What a client's transport receives: the method, the filled-in path, and the rest. */
export interface CallRequest {
  method: string;
  /** e.g. `/v1/boxes/box_.../exec` (parameters percent-encoded). */
  path: string;
  query?: Record<string, QueryValue>;
  /** A JSON body (sent as application/json). */
  json?: unknown;
  /** Request headers the route reads (e.g. X-Box-Override-Reason, Idempotency-Key). */
  headers?: Record<string, string>;
  /** Aborting it closes the answer, as a client hanging up closes a socket's. */
  signal?: AbortSignal;
}

/** One request of the API as the MCP tools and the in-process dispatcher send it: a call, or a raw body (file uploads). */
export interface ApiRequest extends CallRequest {
  body?: Uint8Array;
}

/** `METHOD /v1/x/:id` with its parameters filled in (each percent-encoded, `/` too). */
function routeRequest(
  key: RouteKey,
  args: { params?: Record<string, string | number>; query?: object; body?: unknown; headers?: Record<string, string>; signal?: AbortSignal } = {},
): CallRequest {
  const space = key.indexOf(' ');
  const method = key.slice(0, space);
  const path = key.slice(space + 1).replace(/:([A-Za-z_]+)/g, (_m, name: string) => {
    const v = args.params?.[name];
    if (v === undefined || v === '') throw new Error(`${key}: the path parameter ${name} is missing`);
    return encodeURIComponent(String(v));
  });
  return { method, path, query: args.query as Record<string, QueryValue> | undefined, json: args.body, headers: args.headers, signal: args.signal };
}

/** Runs `key` through `send` and types the answer from the contract. */
export async function callWith<K extends JsonRouteKey>(send: (r: CallRequest) => Promise<unknown>, key: K, ...args: CallRest<K>): Promise<Answer<K>> {
  return (await send(routeRequest(key, (args[0] ?? {}) as Parameters<typeof routeRequest>[1]))) as Answer<K>;
}
