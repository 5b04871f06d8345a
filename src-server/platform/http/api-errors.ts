import type { ErrorBody, ErrorType } from '@box/contract/error-envelope';
import { NotImplemented, TooLarge } from '../../kernel/domain-errors.js';

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

/*
 * Errors the route handlers and the pipeline throw. Everything below is a domain error
 * (core/domain-errors.ts) that error-handler.ts maps to a status; `ApiError` remains for what only
 * the HTTP layer knows (authentication, billing, the concurrency limit, body parsing).
 */
export { conflict, forbidden, invalid as badRequest, notFound } from '../../kernel/domain-errors.js';

/** 501 with `x-should-retry: false`: the OpenAI and Anthropic SDKs retry 5xx unless told not to. */
export const notImplemented = (message: string) => new NotImplemented(message);

export const tooLarge = (message: string, param: string | null = null) => new TooLarge(message, { param });
