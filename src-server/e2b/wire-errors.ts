import { Code, ConnectError } from '@connectrpc/connect';
import { DomainError, type DomainErrorKind } from '../core/domain-errors.js';

/** E2B's statuses of Box's domain error kinds (the same as Box's API gives them). */
const STATUS: Record<DomainErrorKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  limit_exceeded: 429,
  failed: 500,
  not_implemented: 501,
  unavailable: 503,
};

/** envd's Connect codes of the same kinds (the SDK maps them to its error classes). */
const CODE: Record<DomainErrorKind, Code> = {
  invalid: Code.InvalidArgument,
  unauthenticated: Code.Unauthenticated,
  forbidden: Code.PermissionDenied,
  not_found: Code.NotFound,
  conflict: Code.FailedPrecondition,
  too_large: Code.ResourceExhausted,
  limit_exceeded: Code.ResourceExhausted,
  failed: Code.Internal,
  not_implemented: Code.Unimplemented,
  unavailable: Code.Unavailable,
};

/** Status and message of anything thrown: domain errors, the pipeline's ApiError (status), or a fault. */
function classify(err: unknown): { status: number; message: string; kind?: DomainErrorKind } {
  if (err instanceof DomainError) return { status: STATUS[err.kind], message: err.message, kind: err.kind };
  const e = err as { status?: unknown; message?: unknown; type?: unknown };
  if (typeof e?.status === 'number' && e.status >= 400 && e.status < 600 && typeof e.message === 'string') {
    if (e.type === 'entity.parse.failed') return { status: 400, message: `The request body is not valid JSON: ${e.message}` };
    return { status: e.status, message: e.message };
  }
  return { status: 500, message: 'The service hit an unexpected error; it was logged.' };
}

/** E2B's REST error body `{code, message}` (the SDK reads `code` for 404 and 409). */
export function e2bError(err: unknown, log?: (...a: unknown[]) => void): { status: number; body: { code: number; message: string } } {
  const c = classify(err);
  if (c.status === 500 && !(err instanceof DomainError)) log?.('e2b: unexpected error', err);
  return { status: c.status, body: { code: c.status, message: c.message } };
}

/** A Connect error for envd's services. */
export function rpcError(err: unknown): ConnectError {
  if (err instanceof ConnectError) return err;
  const c = classify(err);
  const code = c.kind
    ? CODE[c.kind]
    : c.status === 401
      ? Code.Unauthenticated
      : c.status === 404
        ? Code.NotFound
        : c.status === 403
          ? Code.PermissionDenied
          : c.status === 400
            ? Code.InvalidArgument
            : Code.Internal;
  return new ConnectError(c.message, code);
}
