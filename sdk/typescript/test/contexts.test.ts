import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkContextName, contextsPath, readContexts, selectedContext, writeContexts } from '../src/contexts.js';
import { resolveConfig } from '../src/config.js';
import { normalizeFingerprint } from '../src/tls.js';

const homes: string[] = [];
const home = () => {
  const h = fs.mkdtempSync(path.join(os.tmpdir(), 'box-ctx-'));
  homes.push(h);
  return { HOME: h } as Record<string, string | undefined>;
};
afterEach(() => {
  for (const h of homes.splice(0)) fs.rmSync(h, { recursive: true, force: true });
});
const ctx = (url: string, fp: string | null = null) => ({
  url,
  api_key: `bxk_${url.length}`,
  tls_fingerprint: fp,
  tls_ca: null,
  added_at: '2026-11-28T00:00:00Z',
});

describe('contexts file', () => {
  it('is empty when missing, written 0600, and the current context must exist', () => {
    const env = home();
    expect(readContexts(env)).toEqual({ current: null, contexts: {} });
    writeContexts({ current: 'gone', contexts: { a: ctx('https://10.0.0.5:8787', 'AB:CD') } }, env);
    expect((fs.statSync(contextsPath(env)).mode & 0o777).toString(8)).toBe('600');
    expect(readContexts(env).current).toBeNull();
    expect(readContexts(env).contexts.a!.tls_fingerprint).toBe('AB:CD');
  });

  it('BOX_CONTEXT wins over the current context; "local" means none; an unknown name is an error naming the known ones', () => {
    const env = home();
    writeContexts({ current: 'a', contexts: { a: ctx('https://a:1'), b: ctx('https://b:2') } }, env);
    expect(selectedContext(env)?.name).toBe('a');
    expect(selectedContext({ ...env, BOX_CONTEXT: 'b' })).toMatchObject({ name: 'b', source: 'BOX_CONTEXT' });
    expect(selectedContext({ ...env, BOX_CONTEXT: 'local' })).toBeUndefined();
    expect(() => selectedContext({ ...env, BOX_CONTEXT: 'c' })).toThrow(/BOX_CONTEXT=c: no such context \(known: a, b/);
  });

  it('a malformed file is an error naming it; malformed entries are dropped', () => {
    const env = home();
    fs.mkdirSync(path.dirname(contextsPath(env)), { recursive: true });
    fs.writeFileSync(contextsPath(env), '{nope');
    expect(() => readContexts(env)).toThrow(/contexts\.json is not valid JSON/);
    fs.writeFileSync(contextsPath(env), JSON.stringify({ current: 'x', contexts: { x: { url: 1 }, y: ctx('https://y:1') } }));
    expect(Object.keys(readContexts(env).contexts)).toEqual(['y']);
  });

  it('names are checked; "local" is reserved', () => {
    expect(checkContextName('team-1')).toBe('team-1');
    expect(() => checkContextName('local')).toThrow(/local service/);
    expect(() => checkContextName('a b')).toThrow(/letters, digits/);
  });

  it("the SDK's config takes the context's URL, key and pin; BOX_URL wins", () => {
    const env = home();
    writeContexts({ current: 't', contexts: { t: ctx('https://10.0.0.5:8787/', 'AA:BB') } }, env);
    expect(resolveConfig({}, env)).toMatchObject({ url: 'https://10.0.0.5:8787', apiKey: 'bxk_22', context: 't', tls: { fingerprint: 'AA:BB' } });
    expect(resolveConfig({}, { ...env, BOX_URL: 'http://127.0.0.1:1', BOX_API_KEY: 'k' })).toMatchObject({ url: 'http://127.0.0.1:1', apiKey: 'k' });
    expect(resolveConfig({}, { ...env, BOX_URL: 'http://127.0.0.1:1' }).context).toBeUndefined();
  });
});

describe('fingerprints', () => {
  it('compare regardless of case, colons and a sha256: prefix', () => {
    expect(normalizeFingerprint('sha256:abcd01')).toBe('AB:CD:01');
    expect(normalizeFingerprint('AB:CD:01')).toBe('AB:CD:01');
  });
});
