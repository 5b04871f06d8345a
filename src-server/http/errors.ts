import type { ErrorBody, ErrorType } from '../contract/errors.js';

interface ApiErrorOptions {
  param?: string | null;
  code?: string | number | null;
  headers?: Record<string, string>;
  extra?: Record<string, unknown>;
}

/** A typed error that the one error handler turns into the spec's envelope. */
export class ApiError extends Error {
  readonly param: string | null;
  readonly code: string | number | null;
  readonly headers: Record<string, string>;
  readonly extra: Record<string, unknown>;

  constructor(
    readonly status: number,
    readonly type: ErrorType,
    message: string,
    opts: ApiErrorOptions = {},
  ) {
    super(message);
    this.param = opts.param ?? null;
    this.code = opts.code ?? null;
    this.headers = opts.headers ?? {};
    this.extra = opts.extra ?? {};
  }

  toBody(): ErrorBody {
    return {
      error: { message: this.message, type: this.type, param: this.param, code: this.code, ...this.extra },
    };
  }
}

export const badRequest = (message: string, param: string | null = null, code: string | null = null) =>
  new ApiError(400, 'invalid_request_error', message, { param, code });

export const notFound = (message: string, code: string | null = null, param: string | null = null) =>
  new ApiError(404, 'not_found_error', message, { code, param });

export const conflict = (message: string, code: string | null = null, param: string | null = null) =>
  new ApiError(409, 'conflict_error', message, { code, param });

export const forbidden = (message: string) => new ApiError(403, 'permission_error', message);

/** 501 with `x-should-retry: false`: the OpenAI and Anthropic SDKs retry 5xx unless told not to. */
export const notImplemented = (message: string) => new ApiError(501, 'not_implemented_error', message, { headers: { 'x-should-retry': 'false' } });


export const tooLarge = (message: string, param: string | null = null) =>
  new ApiError(413, 'invalid_request_error', message, { param, code: 'request_too_large' });
