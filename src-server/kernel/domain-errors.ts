/**
 * Domain errors: what went wrong, in the spec's vocabulary (`code`, `param`), without any
 * HTTP. Services, repositories and runtime adapters throw these; the HTTP layer
 * (`http/error-handler.ts`) alone maps each kind to a status and the spec's envelope
 * `{error:{message,type,param,code}}`. Domain code never imports `http/` (lint-enforced,
 * docs/architecture.md "Errors").
 */
import type { ErrorType } from '@box/contract/error-envelope';

/** What kind of failure; the HTTP layer owns the status each kind becomes. */
export type DomainErrorKind =
  | 'invalid' // the request is wrong: fix it (400)
  | 'unauthenticated' // the caller's credential is wrong (401)
  | 'forbidden' // the caller may not do this (403)
  | 'not_found' // no such thing in this organization (404)
  | 'conflict' // the thing is not in a state that allows this (409)
  | 'too_large' // over a size limit (413)
  | 'limit_exceeded' // over a rate or budget limit (429)
  | 'failed' // our side failed doing it (500), the message says why
  | 'not_implemented' // not supported here; retrying will not help (501)
  | 'unavailable'; // a dependency is momentarily unavailable (503)

/** The spec's error `type` of each kind (also recorded for background requests). */
const TYPE: Record<DomainErrorKind, ErrorType> = {
  invalid: 'invalid_request_error',
  unauthenticated: 'authentication_error',
  forbidden: 'permission_error',
  not_found: 'not_found_error',
  conflict: 'conflict_error',
  too_large: 'invalid_request_error',
  limit_exceeded: 'rate_limit_error',
  failed: 'server_error',
  not_implemented: 'not_implemented_error',
  unavailable: 'server_error',
};

interface DomainErrorDetail {
  /** The request field at fault (spec: `param`). */
  param?: string | null;
  /** Machine-readable reason (spec: `code`), e.g. `already_exists`, `failed_precondition`. */
  code?: string | null;
  /** Retrying helps after this many seconds (the upstream said so). */
  retryAfterSeconds?: number;
  /** Retrying the same request cannot help until something is changed (e.g. a budget). */
  final?: boolean;
  /** The rest of the request body was not read, so the connection cannot be reused. */
  bodyUnread?: boolean;
}

export class DomainError extends Error {
  readonly param: string | null;
  readonly code: string | null;
  readonly retryAfterSeconds?: number;
  readonly final: boolean;
  readonly bodyUnread: boolean;

  constructor(
    readonly kind: DomainErrorKind,
    message: string,
    detail: DomainErrorDetail = {},
  ) {
    super(message);
    this.name = 'DomainError';
    this.param = detail.param ?? null;
    this.code = detail.code ?? null;
    this.retryAfterSeconds = detail.retryAfterSeconds;
    this.final = detail.final ?? false;
    this.bodyUnread = detail.bodyUnread ?? false;
  }

  get type(): ErrorType {
    return TYPE[this.kind];
  }
}

function ofKind(kind: DomainErrorKind, defaults: DomainErrorDetail = {}) {
  return class extends DomainError {
    constructor(message: string, detail?: DomainErrorDetail) {
      super(kind, message, { ...defaults, ...detail });
    }
  };
}

/** One class per kind, so `catch (e) { if (e instanceof NotFound) ... }` reads plainly. */
export class Invalid extends ofKind('invalid') {}
export class Unauthenticated extends ofKind('unauthenticated') {}
export class Forbidden extends ofKind('forbidden') {}
export class NotFound extends ofKind('not_found') {}
export class Conflict extends ofKind('conflict') {}
export class TooLarge extends ofKind('too_large', { code: 'request_too_large' }) {}
export class LimitExceeded extends ofKind('limit_exceeded') {}
export class Failed extends ofKind('failed') {}
/** Final: the OpenAI and Anthropic SDKs retry 5xx unless told not to. */
export class NotImplemented extends ofKind('not_implemented', { final: true }) {}
export class Unavailable extends ofKind('unavailable') {}

// Short forms for the common cases (argument order as the former http/api-errors helpers).
export const invalid = (message: string, param: string | null = null, code: string | null = null) => new Invalid(message, { param, code });
export const notFound = (message: string, code: string | null = null, param: string | null = null) => new NotFound(message, { code, param });
export const conflict = (message: string, code: string | null = null, param: string | null = null) => new Conflict(message, { code, param });
export const forbidden = (message: string) => new Forbidden(message);

/** The client closed the connection mid-request: stop the work (nothing reaches it anyway). */
export const clientAborted = () => new Invalid('The request was aborted by the client.', { code: 'client_aborted' });
