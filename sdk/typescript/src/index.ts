export { BoxClient, Boxes, Checkpoints, Volumes, VolumeHandle, Policies, Inboxes, type Page, type CreateBoxOptions } from './client.js';
export { Box, BoxCron } from './box.js';
export { Embeddings } from './embeddings.js';
export { BoxFiles, type WriteOptions } from './files.js';
export { ExecStream, type ExecOptions, type ExecResult, type ExecOutcome, type ExecStatus, type OutputEvent } from './exec.js';
export { BoxDesktop } from './desktop.js';
export { BoxCode, type CodeEvent, type CodeExecution, type RunCodeOptions } from './code.js';
export type { ClientOptions, UploadBody } from './http.js';
export { resolveConfig, type ServiceConfig } from './config.js';
export {
  BoxError,
  BoxConnectionError,
  BoxApiError,
  BadRequestError,
  AuthenticationError,
  BillingError,
  PermissionDeniedError,
  NotFoundError,
  ConflictError,
  PayloadTooLargeError,
  RateLimitError,
  InternalServerError,
  ServiceUnavailableError,
  type ErrorBody,
} from './errors.js';
export type * from './types.js';
