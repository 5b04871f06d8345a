import { describe, expect, it } from 'vitest';
import { ApiError, apiUrl } from './client.js';

describe('renderer API client', () => {
  it('reads the spec error envelope into ApiError fields', () => {
    const e = ApiError.fromText(400, JSON.stringify({ error: { message: 'Invalid name', type: 'invalid_request_error', param: 'name', code: null } }));
    expect([e.status, e.message, e.type, e.param, e.code]).toEqual([400, 'Invalid name', 'invalid_request_error', 'name', null]);
  });

  it('keeps a non-JSON answer readable', () => {
    const e = ApiError.fromText(502, 'Bad gateway\n');
    expect([e.message, e.type, e.param]).toEqual(['Bad gateway', 'server_error', null]);
  });

  it('builds query strings, dropping empty values', () => {
    expect(apiUrl('/v1/boxes', { status: 'running', search: '', offset: 0, app_id: undefined })).toBe('/v1/boxes?status=running&offset=0');
    expect(apiUrl('/v1/x?a=1', { b: 2 })).toBe('/v1/x?a=1&b=2');
  });
});
