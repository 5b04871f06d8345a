import { Code, ConnectError } from '@connectrpc/connect';
import { DomainError, type DomainErrorKind } from '../../kernel/domain-errors.js';

/**
 * envd's Connect codes of Box's domain error kinds (the SDK maps them to its error classes).
 * Connect codes, not HTTP statuses: those are http/error-handler.ts's alone.
 */
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

/** A Connect error for envd's services; anything but a domain error is an internal one (its message kept). */
export function rpcError(err: unknown): ConnectError {
  if (err instanceof ConnectError) return err;
  if (err instanceof DomainError) return new ConnectError(err.message, CODE[err.kind]);
  return new ConnectError('The service hit an unexpected error; it was logged.', Code.Internal);
}
