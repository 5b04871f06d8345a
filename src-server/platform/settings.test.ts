import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { ENV_SETTINGS, readEnv, readTuning, SettingsError } from './settings.js';
import { startTestService } from '../test-support/harness.js';

describe('settings table', () => {
  it('parses the BOX_* variables it lists, with their types', () => {
    const env = readEnv({ BOX_WARM_POOL: '0', BOX_TEMPLATES: '0', BOX_TCG_TB_SIZE: '128', BOX_ACCEL: 'tcg', BOX_QEMU_THP: '1', HOME: '/h' });
    expect(env).toMatchObject({ warmPool: 0, templates: false, tcgTbSizeMib: 128, accel: 'tcg', qemuThp: true, home: '/h' });
    expect(readEnv({ BOX_SAVE_COMPOSE: '1', BOX_URL: 'http://x' })).toMatchObject({ saveCompose: true });
    expect(readEnv({ HOME: '/h' }).warmPool).toBeUndefined();
  });

  it('refuses a malformed value of a known BOX_* setting, naming it', () => {
    expect(() => readEnv({ BOX_WARM_POOL: 'many' })).toThrow(/BOX_WARM_POOL="many"/);
    expect(() => readEnv({ BOX_WARM_POOL: '20' })).toThrow(/BOX_WARM_POOL/);
    expect(() => readEnv({ BOX_TEMPLATES: 'off' })).toThrow(/BOX_TEMPLATES="off"/);
    expect(() => readEnv({ BOX_TEMPLATES: 'off', BOX_CLIENT_ID: 'x' })).toThrow(SettingsError);
  });

  it('ignores an unknown BOX_* variable with a warning naming it and the nearest known name', () => {
    const env = readEnv({ BOX_WARMPOOL: '1', BOX_CLIENT_ID: 'abc', BOX_DEVELOPER_TOKEN: 't', BOX_URL: 'http://x', BOX_TEMPLATES: '0' });
    expect(env).toMatchObject({ templates: false });
    expect(env.warmPool).toBeUndefined();
    expect(env.warnings).toHaveLength(3);
    expect(env.warnings[0]).toBe(
      'BOX_WARMPOOL is not a setting of Box and is ignored (the nearest is BOX_WARM_POOL; the table: README.md, src-server/platform/settings.ts)',
    );
    expect(env.warnings[1]).toMatch(/^BOX_CLIENT_ID is not a setting of Box and is ignored \(the nearest is BOX_\w+;/);
    expect(env.warnings[2]).toMatch(/^BOX_DEVELOPER_TOKEN is not a setting/);
    expect(readEnv({ BOX_URL: 'http://x', HOME: '/h' }).warnings).toEqual([]);
  });

  it('types the tuning and refuses an unknown or mistyped key', () => {
    const t = readTuning({ cronTickMs: 5 });
    expect(t).toMatchObject({ cronTickMs: 5, boxTickMs: 1000, prepareTemplates: true, usageRates: {}, llama: {} });
    expect(() => readTuning({ cronTickMs: 'soon' } as never)).toThrow(/bad tuning: cronTickMs/);
    expect(() => readTuning({ cronTicks: 5 } as never)).toThrow(/bad tuning: .*cronTicks/);
  });

  it("is README.md's settings table, row for row", () => {
    const readme = fs.readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('Settings (environment of the service'));
    const rows = section
      .slice(0, section.indexOf('\n###'))
      .split('\n')
      .filter((l) => l.startsWith('| `'))
      .map((l) =>
        l
          .split('|')
          .slice(1, -1)
          .map((c) => c.trim()),
      );
    expect(rows).toEqual(Object.values(ENV_SETTINGS).map((s) => [`\`${s.env}\``, s.default, s.meaning]));
  });
});

describe('a service with a bad setting', () => {
  afterEach(() => {
    delete process.env.BOX_WARM_POOL;
    delete process.env.BOX_CLIENT_ID;
  });

  it('does not start, and says which variable is wrong', async () => {
    process.env.BOX_WARM_POOL = 'lots';
    await expect(startTestService()).rejects.toThrow(/BOX_WARM_POOL="lots"/);
  });

  it("starts with another program's BOX_* variable, and its log names it", async () => {
    process.env.BOX_CLIENT_ID = 'box-dot-com-app';
    const warned: unknown[][] = [];
    const svc = await startTestService({ log: { info() {}, warn: (...a: unknown[]) => warned.push(a), error() {} } });
    try {
      expect((await svc.api('/v1/whoami')).status).toBe(200);
      expect(warned.map((a) => String(a[0]))).toContainEqual(
        expect.stringMatching(/^BOX_CLIENT_ID is not a setting of Box and is ignored \(the nearest is BOX_/),
      );
      const log = fs.readFileSync(`${svc.dataDir}/logs/service.log`, 'utf8');
      expect(log).toContain('BOX_CLIENT_ID is not a setting of Box');
    } finally {
      await svc.close();
    }
  });

  it('does not start with an unknown tuning key', async () => {
    await expect(startTestService({ tuning: { cronTick: 1 } as never })).rejects.toThrow(/cronTick/);
  });
});
