import { describe, expect, it } from 'vitest';
import {
  clientAborted,
  Conflict,
  Failed,
  Forbidden,
  Invalid,
  LimitExceeded,
  NotFound,
  NotImplemented,
  TooLarge,
  Unauthenticated,
  Unavailable,
} from '../../kernel/domain-errors.js';
import { errorBody } from './error-handler.js';

const quiet = { log: { error: () => {} } } as never;

// The one mapping of domain errors to HTTP: statuses, the spec's envelope, retry headers.
describe('domain errors on the wire', () => {
  it.each([
    [new Invalid('bad', { param: 'name' }), 400, 'invalid_request_error'],
    [new Unauthenticated('who?', { code: 'invalid_api_key' }), 401, 'authentication_error'],
    [new Forbidden('no'), 403, 'permission_error'],
    [new NotFound('gone', { param: 'box_id' }), 404, 'not_found_error'],
    [new Conflict('busy', { code: 'failed_precondition' }), 409, 'conflict_error'],
    [new TooLarge('big'), 413, 'invalid_request_error'],
    [new LimitExceeded('slow down'), 429, 'rate_limit_error'],
    [new Failed('broke'), 500, 'server_error'],
    [new NotImplemented('later'), 501, 'not_implemented_error'],
    [new Unavailable('away'), 503, 'server_error'],
  ] as const)('%o → %i %s', (err, status, type) => {
    const r = errorBody(err, quiet);
    expect(r.status).toBe(status);
    expect(r.body).toEqual({ error: { message: err.message, type, param: err.param, code: err.code } });
  });

  it('keeps param and code, and TooLarge defaults its code to request_too_large', () => {
    expect(errorBody(new Conflict('x', { param: 'name', code: 'already_exists' })).body).toEqual({
      error: { message: 'x', type: 'conflict_error', param: 'name', code: 'already_exists' },
    });
    expect((errorBody(new TooLarge('x')).body as { error: { code: string } }).error.code).toBe('request_too_large');
  });

  it('turns retry advice into headers', () => {
    expect(errorBody(new LimitExceeded('x', { retryAfterSeconds: 7 })).headers).toEqual({ 'Retry-After': '7' });
    expect(errorBody(new LimitExceeded('x', { final: true })).headers).toEqual({ 'x-should-retry': 'false' });
    expect(errorBody(new NotImplemented('x')).headers).toEqual({ 'x-should-retry': 'false' });
    expect(errorBody(new TooLarge('x', { bodyUnread: true })).headers).toEqual({ Connection: 'close' });
    expect(errorBody(new NotFound('x')).headers).toEqual({});
  });

  it('a client that went away is a 400 client_aborted, and a plain Error is a logged 500 without internals', () => {
    expect(errorBody(clientAborted())).toMatchObject({ status: 400, body: { error: { code: 'client_aborted' } } });
    const logged: unknown[] = [];
    const r = errorBody(new Error('secret detail /home/x'), { log: { error: (...a: unknown[]) => logged.push(a) } } as never);
    expect(r.status).toBe(500);
    expect(JSON.stringify(r.body)).not.toContain('secret detail');
    expect(logged).toHaveLength(1);
  });
});
