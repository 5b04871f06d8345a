/** A failure the CLI reports as one line `error: ...` and a non-zero exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

export interface ApiErrorBody {
  message: string;
  type: string;
  param: string | null;
  code: string | number | null;
  billing_url?: string;
}

/** An error answer of the service, in the spec's envelope. */
export class ApiFailure extends CliError {
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody,
  ) {
    super(formatApiError(status, body), exitCodeFor(status));
  }
  get code() {
    return this.body.code;
  }
}

/** `<message> (param: x, code: y)`; the `error: ` prefix is added where it is printed. */
function formatApiError(status: number, e: ApiErrorBody): string {
  const bits: string[] = [];
  if (e.param) bits.push(`param: ${e.param}`);
  if (e.code !== null && e.code !== undefined) bits.push(`code: ${e.code}`);
  if (bits.length === 0) bits.push(`HTTP ${status}`);
  let line = `${e.message.replace(/\s*\n\s*/g, ' ')} (${bits.join(', ')})`;
  if (e.billing_url) line += ` — add credits at ${e.billing_url}`;
  return line;
}

/**
 * Exit codes a script can branch on: 1 generic, 2 usage, 3 auth/permission/billing,
 * 4 not found, 5 conflict, 6 rate limited / unavailable.
 */
function exitCodeFor(status: number): number {
  if (status === 400 || status === 413) return 2;
  if (status === 401 || status === 402 || status === 403) return 3;
  if (status === 404) return 4;
  if (status === 409) return 5;
  if (status === 429 || status === 503) return 6;
  return 1;
}
