import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, Response } from 'express';
import { z } from 'zod';
import type { AppBase, AppContext, RouteApp } from '../app-context.js';
import type { Principal } from '../core/principal.js';
import type { ResponseKind } from '../contract/routes.js';
import { authenticate } from './auth.js';
import { ApiError, forbidden } from './api-errors.js';
import { errorBody, pathOf, setErrorStyle, styledErrorBody, writeJson, type ErrorStyle } from './error-handler.js';
import { readJsonBody } from './body.js';
import { idempotencyKey, replayOrRefuse } from './idempotency-key.js';
import { parseJsonBody } from './json-body.js';
import { drainHash, hashWhileStreaming } from './stream-hash.js';
import { parseOr400 } from './validate.js';
import { recordViolation, responseProblem } from './response-check.js';
import type { Area, Dispatch, Fallback, Method, UpgradeSpec } from './route-types.js';

export type { Area, Dispatch, DispatchRequest, Fallback, Method, UpgradeSpec } from './route-types.js';

/** Where a routes function declares its routes (http/registry.ts RouteRegistry). */
export interface RouteRegistrar {
  add<B, Q, P>(spec: RouteSpec<B, Q, P>): void;
  /** Every route of the service, called in-process for a known caller (http/dispatch.ts; the MCP area). */
  readonly dispatcher: Dispatch;
  /** A WebSocket endpoint (http/upgrade.ts): same guard, authentication and billing as `add`'s routes. */
  upgrade(spec: UpgradeSpec): void;
  /** What answers a request under `prefix` that no route takes (mounted after the routes). */
  fallback(f: Fallback): void;
}

interface RouteCtx<B, Q, P> {
  req: Request;
  res: Response;
  body: B;
  query: Q;
  params: P;
  auth: Principal;
  /** Services and configuration only: no database, no repository (app-context.ts). */
  app: RouteApp;
}

/** A reply with a status other than 200, or extra headers. */
export class Reply {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {}
}

export interface RouteSpec<B = any, Q = any, P = any> {
  method: Method;
  /** Express path, e.g. `/v1/box-volumes/:volume_id`. */
  path: string;
  area: Area;
  summary: string;
  tag: string;
  /** `org` (default for box API): organization-scoped key; `any`: any valid key; `none`: public. */
  auth?: 'org' | 'any' | 'none';
  /** How errors are written (http/error-handler.ts): `box` (default, the spec's envelope) or `e2b`. */
  errors?: ErrorStyle;
  /** Routes that stay usable at zero credits (so credits can be added). */
  billingExempt?: boolean;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  /** The 2xx JSON answer (from `contract/routes.ts`); checked under tests (http/response-check.ts). */
  response?: z.ZodType;
  /**
   * A non-JSON answer the handler writes itself: `ndjson` (exec events), `bytes` (file
   * downloads), `sse` (server-sent events). A route may also have `response` when it answers
   * JSON otherwise (e.g. the egress log without `stream=1`). Every route declares one or both.
   */
  responseKind?: ResponseKind;
  /** With `sse`: one event's `data` schema (from `contract/routes.ts`), shown in the OpenAPI document. */
  streamEvents?: z.ZodType;
  /** Default: true for mutating methods with a JSON body. */
  idempotent?: boolean;
  /** The handler reads the request stream itself (file uploads); no JSON parsing. */
  rawBody?: boolean;
  /**
   * Served by node:http directly, ahead of Express (http/plain-front.ts), when the request
   * has no query string and its path fits exactly (literal segments as written, parameters
   * non-empty and decodable): the handler's `req`/`res` are then plain node:http objects
   * (with `req.params` set), so it must use only their API (no Express additions). The
   * inference endpoints (issue 10) and exec (issue 9), whose per-request overhead is a
   * product goal.
   */
  plain?: boolean;
  bodyLimitBytes?: number;
  /** Return a value (sent as JSON 200), a Reply, or undefined after writing `res` yourself. */
  handler: (ctx: RouteCtx<B, Q, P>) => unknown | Promise<unknown>;
}

const MUTATING: Method[] = ['post', 'put', 'patch', 'delete'];

const authModeOf = (spec: RouteSpec) => spec.auth ?? (spec.area === 'inference' ? 'any' : 'org');

/** The whole request pipeline for one route: auth → limits → idempotency → validation → handler. */
export function runRoute(spec: RouteSpec, app: AppContext) {
  const authMode = authModeOf(spec);
  const run = runAs(spec, app);
  return async (req: PipelineRequest, res: ServerResponse) => {
    setErrorStyle(req, spec.errors); // an authentication error is already in the route's error style
    // Inference routes also accept a box's egress proxy (the box principal; never org-scoped).
    const viaBox = spec.area === 'inference' && authMode !== 'none' ? await app.boxPrincipal(req) : undefined;
    const auth = authMode === 'none' ? undefined : (viaBox ?? (await authenticate(req, app.repos)));
    return run(req, res, auth);
  };
}

/**
 * The pipeline after authentication, for a caller already known: the scope check, billing,
 * the concurrency limit, body, idempotency, validation, the handler and its answer. HTTP
 * requests come through `runRoute`; in-process calls (http/dispatch.ts) with their principal.
 */
export function runAs(spec: RouteSpec, app: AppContext) {
  const authMode = authModeOf(spec);
  // Streamed uploads too (their body is hashed as it streams); keyless routes have no key to scope by.
  const idempotent = spec.idempotent ?? (MUTATING.includes(spec.method) && authMode !== 'none');
  // exec, console, egress log and SSE answers may last hours: their own pool (http/limits.ts)
  const stream = spec.responseKind === 'ndjson' || spec.responseKind === 'sse';
  const frees = spec.method === 'delete' || spec.path.endsWith('/terminate');

  return async (req: PipelineRequest, res: ServerResponse, principal: Principal | undefined) => {
    setErrorStyle(req, spec.errors);
    // undefined only for keyless routes (a principal handed in is not theirs to bill or limit)
    const auth = (authMode === 'none' ? undefined : principal) as Principal;
    if (authMode === 'org' && auth.key.scope !== 'organization') {
      throw forbidden('This operation needs an organization-scoped API key.');
    }
    const release = auth ? await admit(app, auth.orgId, res, { stream, billingExempt: spec.billingExempt }) : () => {};
    if (frees) app.diskSpace.beforeFreeing(); // at 0 bytes free a delete still has room for SQLite's journal
    try {
      const key = idempotent ? idempotencyKey(req) : undefined;
      if (key !== undefined && spec.rawBody) return await rawIdempotent(spec, app, req, res, auth, key);
      const raw = spec.rawBody ? Buffer.alloc(0) : await readJsonBody(req, spec.bodyLimitBytes ?? app.config.jsonBodyLimitBytes);
      if (key === undefined) return await execute(spec, app, req, res, auth, raw);
      const reqHash = createHash('sha256').update(requestLine(req)).update(raw).digest('hex');
      const keyId = auth.key.id;
      const prior = await app.repos.idempotency.get(keyId, key);
      if (prior) return replayOrRefuse(res, prior, reqHash);
      if (!(await app.repos.idempotency.claim(keyId, key, reqHash))) {
        return replayOrRefuse(res, (await app.repos.idempotency.get(keyId, key))!, reqHash);
      }
      // The answer is recorded (SQLite, synchronous=FULL) before a byte of it is sent: a crash
      // between the two leaves a key a retry replays, never an acknowledged create without one.
      let settled = false;
      try {
        await execute(spec, app, req, res, auth, raw, async (status, body) => {
          if (status >= 500) return; // unsettled: a retry runs again (spec rule 7)
          await app.repos.idempotency.settle(keyId, key, status, 'application/json', body);
          settled = true;
        });
      } finally {
        if (!settled) await app.repos.idempotency.release(keyId, key);
      }
    } finally {
      if (res.writableEnded) release();
    }
  };
}

/**
 * The pipeline's admission of an authenticated request: billing (402 at zero credits), then
 * the organization's concurrency limit (429), released when the answer ends (the returned
 * function releases it earlier). Also run by E2B's sandbox URL, which is not a registry
 * route (e2b/sandbox-routes.ts).
 */
export async function admit(
  app: Pick<AppBase, 'billing' | 'limiter'>,
  orgId: string,
  res: ServerResponse,
  opts: { stream: boolean; billingExempt?: boolean },
): Promise<() => void> {
  if (!opts.billingExempt) await app.billing.check(orgId);
  const release = app.limiter.acquire(orgId, opts.stream ? 'stream' : 'short');
  res.on('close', release);
  return release;
}

/** What the pipeline reads of a request: node:http's, plus Express's additions when Express routed it. */
type PipelineRequest = IncomingMessage & Partial<Pick<Request, 'originalUrl' | 'params' | 'query'>>;

const requestLine = (req: PipelineRequest) => `${req.method} ${req.originalUrl ?? req.url}\n`;

/**
 * Idempotency for a streamed body: the key is claimed before the body is known, and the
 * request hash (same formula as JSON bodies) is fixed once the handler has read it all.
 * A key already used: its body is read and hashed, then replayed or refused (409). A body
 * the handler did not read to the end (refused early) cannot be compared later: unsettled.
 */
async function rawIdempotent(spec: RouteSpec, app: AppContext, req: PipelineRequest, res: ServerResponse, auth: Principal, key: string) {
  const keyId = auth.key.id;
  const pending = `pending:${crypto.randomUUID()}`;
  if (!(await app.repos.idempotency.claim(keyId, key, pending))) {
    const prior = (await app.repos.idempotency.get(keyId, key))!;
    if (prior.state === 'in_flight') return replayOrRefuse(res, prior, prior.request_hash);
    return replayOrRefuse(res, prior, await drainHash(req, requestLine(req)));
  }
  const hash = hashWhileStreaming(req, requestLine(req));
  let settled = false;
  try {
    await execute(spec, app, req, res, auth, Buffer.alloc(0), async (status, body) => {
      if (status >= 500 || !hash.complete()) return;
      await app.repos.idempotency.settle(keyId, key, status, 'application/json', body, hash.digest());
      settled = true;
    });
  } finally {
    if (!settled) await app.repos.idempotency.release(keyId, key);
  }
}

/** `record`: called with the JSON answer before it is written (idempotency settles there). */
async function execute(
  spec: RouteSpec,
  app: AppContext,
  req: PipelineRequest,
  res: ServerResponse,
  auth: Principal,
  raw: Buffer,
  record?: (status: number, body: Buffer) => Promise<void>,
) {
  let status = 200;
  let payload: unknown;
  let headers: Record<string, string> = {};
  try {
    // A plain node:http request (http/plain-front.ts) has a literal path and no query string.
    const params = spec.params ? parseOr400(spec.params, req.params ?? {}) : (req.params ?? {});
    const query = spec.query ? parseOr400(spec.query, req.query ?? {}) : (req.query ?? {});
    let body: unknown = undefined;
    if (!spec.rawBody) {
      const json = raw.length ? parseJsonBody(raw.toString('utf8')) : undefined;
      body = spec.body ? parseOr400(spec.body, json ?? (spec.method === 'get' || spec.method === 'delete' ? undefined : {})) : json;
    }
    // Express's objects, or node:http's for `plain` routes (whose handlers use only that API).
    const out = await spec.handler({ req: req as Request, res: res as Response, body, query, params, auth, app });
    if (out === undefined && res.headersSent) return undefined;
    if (out instanceof Reply) ({ status, body: payload, headers } = out);
    else payload = out ?? {};
    if (app.config.checkResponses && status >= 200 && status < 300 && status !== 204) {
      const problem = responseProblem(spec, payload);
      if (problem) {
        recordViolation(app, problem.message);
        app.log.error(`response contract violation: ${problem.message}`);
        throw new ApiError(500, 'server_error', `Response contract violation: ${problem.message}`, {
          param: problem.param,
          code: 'response_contract_violation',
        });
      }
    }
  } catch (err) {
    if (res.headersSent) throw err;
    const path = pathOf(req);
    const e = errorBody(err, app, { method: req.method, path });
    status = e.status;
    payload = styledErrorBody(req, e);
    headers = e.headers;
  }
  const text = status === 204 ? null : JSON.stringify(payload);
  await record?.(status, text === null ? Buffer.alloc(0) : Buffer.from(text));
  writeJson(res, status, headers, text);
}
