import { expect, it } from 'vitest';
import { entryDataDir } from './entry-data-dir.js';
import { defaultDataDir, readEnv } from './platform/settings.js';

it("finds the data dir as the service's settings do, without loading them", () => {
  for (const env of [{ HOME: '/home/u' }, { HOME: '/home/u', BOX_DATA_DIR: '/srv/box' }, { HOME: '', BOX_DATA_DIR: '' }]) {
    expect(entryDataDir([], env)).toBe(defaultDataDir(readEnv(env)));
  }
  expect(entryDataDir(['--port', '0', '--data-dir', '/tmp/d', '--web-ui', 'x'], { BOX_DATA_DIR: '/srv/box' })).toBe('/tmp/d');
  expect(entryDataDir(['--data-dir=/tmp/e'], {})).toBe('/tmp/e');
});
