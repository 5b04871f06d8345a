import type { HostedEvent, NativeDelta } from '../native.js';
import type { StoredResponse } from '../store/responses-repo.js';

/** An error as the stream reports it (the envelope's fields). */
export interface StreamError {
  status: number;
  type: string;
  code: string | null;
  message: string;
  param: string | null;
}

/**
 * One wire style's server-sent events for a streamed request (pure: each call returns the
 * frames to write). `start` once the request passed its checks, `delta` per engine
 * report, then `finish` with the finished stored request, or `error`.
 */
export interface StreamWriter {
  start(r: StoredResponse): string;
  delta(d: NativeDelta): string;
  finish(r: StoredResponse): string;
  error(e: StreamError): string;
  /** A hosted call's progress (styles with hosted tools: Responses, Messages). */
  hosted?(e: HostedEvent): string;
}

/** One SSE frame; `event` is omitted for Chat Completions (its clients read `data` only). */
export const frame = (event: string | null, data: unknown) => `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;
