/** Error envelope of the spec (Errors section): shared by server, renderer and CLI. */
export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'billing_error'
  | 'not_found_error'
  | 'conflict_error'
  | 'rate_limit_error'
  | 'quota_exceeded_error'
  | 'not_implemented_error'
  | 'server_error';

export interface ErrorBody {
  error: {
    message: string;
    type: ErrorType;
    param: string | null;
    code: string | number | null;
    billing_url?: string;
    [extra: string]: unknown;
  };
}
