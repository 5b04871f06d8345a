import { describe, expect, it } from 'vitest';
import type { PolicyDocument } from '@box/contract/policies';
import { expandSecretRefs, policyDocumentProblem, secretRefs } from '@box/contract/policies';
import { evaluate, matchHost } from './evaluate.js';

const doc: PolicyDocument = {
  'api.example.com': {
    rules: [
      { match: { method: 'GET', path: { prefix: '/v1/' } }, request: { set: { headers: { Authorization: 'Bearer ${secrets.API_TOKEN}' } } } },
      { match: { method: ['post', 'PUT'], path: { equals: '/upload' } } },
      { match: { path: { prefix: '/admin' } }, respond: { status: 403, body: 'no admin' } },
    ],
  },
  '*.example.com': { rules: [] },
  'example.com': { rules: [{ respond: { status: 451 } }] },
  '*': { rules: [{ match: { method: 'GET' } }] },
};

describe('matchHost', () => {
  it('exact key wins over wildcard and fallback; case and trailing dot ignored', () => {
    expect(matchHost(doc, 'api.example.com')).toBe('api.example.com');
    expect(matchHost(doc, 'API.Example.COM.')).toBe('api.example.com');
    expect(matchHost(doc, 'example.com')).toBe('example.com');
  });

  it('*.domain matches one direct subdomain only', () => {
    expect(matchHost(doc, 'www.example.com')).toBe('*.example.com');
    expect(matchHost(doc, 'a.b.example.com')).toBe('*'); // two labels deep: not the wildcard
    expect(matchHost({ '*.example.com': { rules: [] } }, 'a.b.example.com')).toBeUndefined();
    expect(matchHost({ '*.example.com': { rules: [] } }, 'example.com')).toBeUndefined();
    expect(matchHost({ '*.example.com': { rules: [] } }, 'notexample.com')).toBeUndefined();
  });

  it('* is the fallback; without it an unmatched host has no key', () => {
    expect(matchHost(doc, 'other.org')).toBe('*');
    expect(matchHost({ 'a.com': { rules: [] } }, 'b.com')).toBeUndefined();
    expect(matchHost({}, 'a.com')).toBeUndefined();
  });
});

describe('evaluate', () => {
  it('a host matching no key is refused', () => {
    expect(evaluate({ 'a.com': { rules: [] } }, { host: 'b.com', method: 'GET', path: '/' })).toMatchObject({ verdict: 'deny' });
    expect(evaluate({}, { host: 'a.com', method: 'GET', path: '/' }).verdict).toBe('deny');
  });

  it('first matching rule wins; method and path prefix; header rewrite carried out as templates', () => {
    const v = evaluate(doc, { host: 'api.example.com', method: 'get', path: '/v1/items?x=1' });
    expect(v).toMatchObject({ verdict: 'allow', hostKey: 'api.example.com', rule: 0, setHeaders: { Authorization: 'Bearer ${secrets.API_TOKEN}' } });
  });

  it('method lists and exact paths (query ignored)', () => {
    expect(evaluate(doc, { host: 'api.example.com', method: 'PUT', path: '/upload?part=2' })).toMatchObject({ verdict: 'allow', rule: 1 });
    expect(evaluate(doc, { host: 'api.example.com', method: 'POST', path: '/upload' }).setHeaders).toBeUndefined();
    expect(evaluate(doc, { host: 'api.example.com', method: 'POST', path: '/upload/more' }).verdict).toBe('deny');
    expect(evaluate(doc, { host: 'api.example.com', method: 'DELETE', path: '/upload' }).verdict).toBe('deny');
  });

  it('respond answers locally', () => {
    expect(evaluate(doc, { host: 'api.example.com', method: 'GET', path: '/admin/users' })).toMatchObject({
      verdict: 'respond',
      rule: 2,
      respond: { status: 403, body: 'no admin' },
    });
    expect(evaluate(doc, { host: 'example.com', method: 'GET', path: '/' })).toMatchObject({ verdict: 'respond', respond: { status: 451 } });
  });

  it('rule order matters: a GET under /v1/ never reaches a later respond', () => {
    const d: PolicyDocument = { 'h.io': { rules: [{ match: { path: { prefix: '/' } }, respond: { status: 418 } }, { match: {} }] } };
    expect(evaluate(d, { host: 'h.io', method: 'GET', path: '/x' }).verdict).toBe('respond');
  });

  it('an empty rule list allows everything; a non-empty list with no match refuses', () => {
    expect(evaluate(doc, { host: 'cdn.example.com', method: 'DELETE', path: '/x' })).toMatchObject({ verdict: 'allow', hostKey: '*.example.com' });
    expect(evaluate(doc, { host: 'other.org', method: 'GET', path: '/' })).toMatchObject({ verdict: 'allow', hostKey: '*' });
    expect(evaluate(doc, { host: 'other.org', method: 'POST', path: '/' })).toMatchObject({ verdict: 'deny', hostKey: '*' });
  });

  it('a rule without match matches everything', () => {
    expect(evaluate({ '*': { rules: [{}] } }, { host: 'x.y', method: 'PATCH', path: '/z' }).verdict).toBe('allow');
  });

  it('ports: listed numbers, or "gateway" for the gateway port; an unknown port is refused', () => {
    const d: PolicyDocument = { 'h.io': { ports: [443, 'gateway'], rules: [] }, 'any.io': { rules: [] } };
    const at = (host: string, port: number | undefined, gatewayPort?: number) => evaluate(d, { host, method: 'GET', path: '/', port, gatewayPort });
    expect(at('h.io', 443).verdict).toBe('allow');
    expect(at('h.io', 8443)).toMatchObject({ verdict: 'deny', hostKey: 'h.io', reason: 'host entry h.io does not allow port 8443 (ports: 443, gateway)' });
    expect(at('h.io', 8788, 8788).verdict).toBe('allow');
    expect(at('h.io', 8788, 9000).verdict).toBe('deny');
    expect(at('h.io', 8788).verdict).toBe('deny');
    expect(at('h.io', undefined).verdict).toBe('deny');
    expect(at('any.io', 1).verdict).toBe('allow');
  });
});

describe('secret references', () => {
  it('lists and expands ${secrets.NAME}', () => {
    expect(secretRefs('a ${secrets.ONE} b ${secrets._two} ${other.X}')).toEqual(['ONE', '_two']);
    expect(expandSecretRefs('Bearer ${secrets.T}!', (n) => `<${n}>`)).toBe('Bearer <T>!');
  });
});

describe('policyDocumentProblem', () => {
  it('accepts a valid document and names the field of the first problem', () => {
    expect(policyDocumentProblem(doc)).toBeNull();
    expect(policyDocumentProblem({ 'a.com': { rules: [{}, {}, { respond: { status: 99 } }] } })?.param).toBe('document["a.com"].rules[2].respond.status');
    expect(policyDocumentProblem({ 'a..com': { rules: [] } })?.param).toBe('document["a..com"]');
    expect(policyDocumentProblem([])?.param).toBe('document');
    expect(policyDocumentProblem({ 'a.com': { ports: [443, 'gateway'], rules: [] } })).toBeNull();
    expect(policyDocumentProblem({ 'a.com': { ports: [0], rules: [] } })?.param).toBe('document["a.com"].ports[0]');
    expect(policyDocumentProblem({ 'a.com': { ports: ['ssh'], rules: [] } })?.param).toBe('document["a.com"].ports[0]');
    expect(policyDocumentProblem({ 'a.com': { ports: [], rules: [] } })?.param).toBe('document["a.com"].ports');
  });
});
