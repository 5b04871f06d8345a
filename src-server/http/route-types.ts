import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Request } from 'express';
import type { ZodType } from 'zod';
import type { RouteApp } from '../app-context.js';
import type { ApiRequest } from '../contract/call.js';
import type { Principal } from '../core/principal.js';
import type { ErrorStyle } from './error-handler.js';

/** The pipeline's small types (http/route.ts re-exports them): methods, areas, fallbacks, in-process calls, WebSocket endpoints. */
export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** Unknown routes under a prefix of another API: authenticated, then `error(req)` in its error style. */
export interface Fallback {
  prefix: string;
  area: Area;
  errors: ErrorStyle;
  /** `req.path` is relative to `prefix`. */
  error: (req: Request) => unknown;
}
export type Area = 'box' | 'inference' | 'common';

/** One in-process call: an operation of the contract with its path filled in, as a client sends it. */
export type DispatchRequest = ApiRequest;

/** Calls the service's routes in-process for a known caller (http/dispatch.ts; `RouteRegistrar.dispatcher`). */
export interface Dispatch {
  send(principal: Principal, r: DispatchRequest): Promise<globalThis.Response>;
}

/**
 * An HTTP upgrade (WebSocket) endpoint: `GET path` with `Upgrade: websocket`. The upgrade
 * request goes through the same checks as a request of the HTTP pipeline (`runRoute`):
 * the local guard (Host and origin: no DNS rebinding, no cross-origin page), authentication
 * (API key, session cookie, or a box's egress credential on inference endpoints) and
 * billing; a refusal is the spec's JSON error envelope with its status, and no upgrade.
 * The handler takes over the socket; `admit` is what each unit of work on it runs first
 * (billing, then a slot of the organization's stream pool, released by the returned function).
 */
export interface UpgradeSpec {
  path: string;
  area: Area;
  summary: string;
  /** The messages each side sends once upgraded, for the OpenAPI document (`x-websocket`). */
  messages?: { client: ZodType; server: ZodType };
  /** A promise that rejects before the socket is taken over is refused like a thrown error. */
  handle(ctx: UpgradeCtx): void | Promise<void>;
}

interface UpgradeCtx {
  req: IncomingMessage;
  socket: Duplex;
  head: Buffer;
  auth: Principal;
  app: RouteApp;
  admit(): Promise<() => void>;
}
