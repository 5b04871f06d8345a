import type { ErrorEnvelope } from './types.js';

/** The `error` object of the spec's envelope: message, type, param, code (and any extra fields). */
export type ErrorBody = ErrorEnvelope['error'];

/** Every error the SDK throws is a BoxError. */
export class BoxError extends Error {
  override name = 'BoxError';
}

/** The service could not be reached (refused, reset, DNS, timeout): nothing was answered. */
export class BoxConnectionError extends BoxError {
  override name = 'BoxConnectionError';
  constructor(
    message: string,
    /** The URL that was asked. */
    readonly url: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * The service answered with an error: the HTTP status and the spec's envelope
 * (`{error: {message, type, param, code}}`), whole in `body`. Subclasses by status:
 * BadRequestError 400, AuthenticationError 401, BillingError 402, PermissionDeniedError 403,
 * NotFoundError 404, ConflictError 409, PayloadTooLargeError 413, RateLimitError 429,
 * InternalServerError 5xx, ServiceUnavailableError 503.
 */
export class BoxApiError extends BoxError {
  override name = 'BoxApiError';
  /** The spec's error type, e.g. `not_found_error`. */
  readonly type: ErrorBody['type'];
  /** The spec's code (e.g. `idempotency_key_reused`, `failed_precondition`), or null. */
  readonly code: string | number | null;
  /** The request field at fault, or null. */
  readonly param: string | null;
  /** Seconds the service asked to wait (Retry-After), if it said. */
  readonly retryAfter: number | undefined;
  constructor(
    readonly status: number,
    /** The whole `error` object of the envelope, extra fields (e.g. billing_url) included. */
    readonly body: ErrorBody,
    /** The answer's headers. */
    readonly headers: Headers,
    /** `METHOD /path` of the request. */
    readonly request: string,
  ) {
    super(`${body.message} (${status} ${body.type}${body.param ? `, param ${body.param}` : ''}${body.code != null ? `, code ${body.code}` : ''})`);
    this.type = body.type;
    this.code = body.code;
    this.param = body.param;
    this.retryAfter = retryAfterSeconds(headers);
  }
  /** The envelope exactly as the service sent it. */
  get envelope(): ErrorEnvelope {
    return { error: this.body };
  }
}

/** BoxApiError's subclasses by HTTP status (any other 5xx: InternalServerError). */
const BY_STATUS_NAME = {
  BadRequestError: 400,
  AuthenticationError: 401,
  BillingError: 402,
  PermissionDeniedError: 403,
  NotFoundError: 404,
  ConflictError: 409,
  PayloadTooLargeError: 413,
  RateLimitError: 429,
  InternalServerError: 500,
} as const;

/** A subclass named `name` (its class name and its errors' `name`), for `instanceof`. */
function subclass(name: string, base: typeof BoxApiError): typeof BoxApiError {
  return {
    [name]: class extends base {
      override name = name;
    },
  }[name]!;
}

const classes = Object.fromEntries(Object.keys(BY_STATUS_NAME).map((n) => [n, subclass(n, BoxApiError)])) as Record<
  keyof typeof BY_STATUS_NAME,
  typeof BoxApiError
>;
export const {
  BadRequestError,
  AuthenticationError,
  BillingError,
  PermissionDeniedError,
  NotFoundError,
  ConflictError,
  PayloadTooLargeError,
  RateLimitError,
  InternalServerError,
} = classes;
/** Each is also a type (the errors differ in class, not in shape). */
export type BadRequestError = BoxApiError;
export type AuthenticationError = BoxApiError;
export type BillingError = BoxApiError;
export type PermissionDeniedError = BoxApiError;
export type NotFoundError = BoxApiError;
export type ConflictError = BoxApiError;
export type PayloadTooLargeError = BoxApiError;
export type RateLimitError = BoxApiError;
export type InternalServerError = BoxApiError;
export type ServiceUnavailableError = BoxApiError;
/** 503: the service is busy or starting (a kind of InternalServerError). */
export const ServiceUnavailableError = subclass('ServiceUnavailableError', InternalServerError);

const BY_STATUS = new Map<number, typeof BoxApiError>([
  ...Object.entries(BY_STATUS_NAME).map(([n, status]) => [status, classes[n as keyof typeof classes]] as const),
  [503, ServiceUnavailableError],
]);

/** Retry-After as seconds (the spec sends an integer; an HTTP date is understood too). */
export function retryAfterSeconds(headers: Headers): number | undefined {
  const v = headers.get('retry-after');
  if (v === null || v.trim() === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(v.trim())) return Number(v);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - Date.now()) / 1000);
}

/** The typed error of an error answer; a body outside the envelope still gets a clear message. */
export async function errorOf(res: Response, request: string): Promise<BoxApiError> {
  const text = await res.text().catch(() => '');
  let body: ErrorBody | undefined;
  try {
    const parsed = JSON.parse(text) as { error?: ErrorBody };
    if (parsed.error && typeof parsed.error.message === 'string')
      body = { ...parsed.error, param: parsed.error.param ?? null, code: parsed.error.code ?? null };
  } catch {
    body = undefined;
  }
  body ??= {
    message: `HTTP ${res.status} ${res.statusText}${text ? `: ${text.slice(0, 200)}` : ''}`,
    type: res.status >= 500 ? 'server_error' : 'invalid_request_error',
    param: null,
    code: null,
  };
  const Cls = BY_STATUS.get(res.status) ?? (res.status >= 500 ? InternalServerError : BoxApiError);
  return new Cls(res.status, body, res.headers, request);
}
