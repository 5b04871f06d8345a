import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { ENV_SETTINGS, readEnv, readTuning, SettingsError } from './settings.js';
import { startTestService } from './test-support/harness.js';

describe('settings table', () => {
  it('parses the BOX_* variables it lists, with their types', () => {
    const env = readEnv({ BOX_WARM_POOL: '0', BOX_TEMPLATES: '0', BOX_TCG_TB_SIZE: '128', BOX_ACCEL: 'tcg', BOX_QEMU_THP: '1', HOME: '/h' });
    expect(env).toMatchObject({ warmPool: 0, templates: false, tcgTbSizeMib: 128, accel: 'tcg', qemuThp: true, home: '/h' });
    expect(readEnv({ BOX_SAVE_COMPOSE: '1', BOX_URL: 'http://x' })).toMatchObject({ saveCompose: true });
    expect(readEnv({ HOME: '/h' }).warmPool).toBeUndefined();
  });

  it('refuses a malformed or unknown BOX_* variable, naming it', () => {
    expect(() => readEnv({ BOX_WARM_POOL: 'many' })).toThrow(/BOX_WARM_POOL="many"/);
    expect(() => readEnv({ BOX_WARM_POOL: '20' })).toThrow(/BOX_WARM_POOL/);
    expect(() => readEnv({ BOX_TEMPLATES: 'off' })).toThrow(/BOX_TEMPLATES="off"/);
    expect(() => readEnv({ BOX_WARMPOOL: '1' })).toThrow(/BOX_WARMPOOL is not a setting of Box/);
    expect(() => readEnv({ BOX_WARMPOOL: '1' })).toThrow(SettingsError);
  });

  it('types the tuning and refuses an unknown or mistyped key', () => {
    const t = readTuning({ cronTickMs: 5 });
    expect(t).toMatchObject({ cronTickMs: 5, boxTickMs: 1000, prepareTemplates: true, usageRates: {}, llama: {} });
    expect(() => readTuning({ cronTickMs: 'soon' } as never)).toThrow(/bad tuning: cronTickMs/);
    expect(() => readTuning({ cronTicks: 5 } as never)).toThrow(/bad tuning: .*cronTicks/);
  });

  it("is README.md's settings table, row for row", () => {
    const readme = fs.readFileSync(new URL('../README.md', import.meta.url), 'utf8');
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
  });

  it('does not start, and says which variable is wrong', async () => {
    process.env.BOX_WARM_POOL = 'lots';
    await expect(startTestService()).rejects.toThrow(/BOX_WARM_POOL="lots"/);
  });

  it('does not start with an unknown tuning key', async () => {
    await expect(startTestService({ tuning: { cronTick: 1 } as never })).rejects.toThrow(/cronTick/);
  });
});
