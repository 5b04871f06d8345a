import { describe, expect, it } from 'vitest';
import { lineOfPath, resolveParamPath } from './locate-param.js';

const text = `{
  "api.example.com": {
    "rules": [{ "match": { "method": "GET" } }]
  },
  "bad host..com": {
    "rules": []
  }
}`;
const doc = JSON.parse(text);

describe('locating an API param in the policy editor', () => {
  it('resolves host keys that contain dots', () => {
    expect(resolveParamPath('document.bad host..com', doc)).toEqual(['bad host..com']);
    expect(resolveParamPath('document.api.example.com.rules[0].match', doc)).toEqual(['api.example.com', 'rules', 0, 'match']);
  });

  it('resolves bracketed host keys as the policies area names them', () => {
    expect(resolveParamPath('document["bad host..com"]', doc)).toEqual(['bad host..com']);
    expect(resolveParamPath('document["api.example.com"].rules[0].match', doc)).toEqual(['api.example.com', 'rules', 0, 'match']);
  });

  it('finds the line of the deepest key', () => {
    expect(lineOfPath(text, ['bad host..com'])).toBe(5);
    expect(lineOfPath(text, ['api.example.com', 'rules', 0, 'match'])).toBe(3);
  });

  it('ignores params outside the document', () => {
    expect(resolveParamPath('name', doc)).toBeNull();
  });
});
