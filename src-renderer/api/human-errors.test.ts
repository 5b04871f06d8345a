import { describe, expect, it } from 'vitest';
import { ApiError } from './client.js';
import { humanValidation } from './human-errors.js';

describe('validation messages in words people use', () => {
  it('turns zod wording into a sentence about the field', () => {
    expect(humanValidation('Invalid name: Too small: expected string to have >=1 characters')).toBe('Name is required.');
    expect(humanValidation('Invalid name: Too big: expected string to have <=63 characters')).toBe('Name must be at most 63 characters long.');
    expect(humanValidation('Invalid memory_mib: Too small: expected number to be >=128')).toBe('Memory mib must be at least 128.');
    expect(humanValidation('Invalid volume_mounts[0].mount_path: Invalid input: expected string, received number')).toBe(
      'Mount path (volume mounts 1) must be text.',
    );
  });

  it('leaves messages it does not know as the service wrote them', () => {
    expect(humanValidation('Invalid name: may contain only letters, digits, "." and "-"')).toBe('Invalid name: may contain only letters, digits, "." and "-"');
    expect(humanValidation('A box named "x" already exists.')).toBe('A box named "x" already exists.');
  });

  it('is what an ApiError of a 400 says', () => {
    const body = {
      error: { message: 'Invalid name: Too small: expected string to have >=1 characters', type: 'invalid_request_error', param: 'name', code: null },
    };
    const e = ApiError.fromText(400, JSON.stringify(body));
    expect([e.message, e.param]).toEqual(['Name is required.', 'name']);
  });
});
