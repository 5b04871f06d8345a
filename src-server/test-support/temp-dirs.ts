/**
 * vitest setupFiles: the temporary directories a test file makes are removed when the file
 * is done. A full run made about 6 GB of them (data dirs with box disks, image imports,
 * certificates), and nothing removed most: eleven runs filled this machine's disk, and the
 * next run's image build failed with "No space left on device".
 *
 * Every fs.mkdtemp under the temp dir, by a test or by the service it runs in-process, is
 * recorded, and removed after the file's own afterAll hooks (this file's hook is registered
 * first, and vitest runs after-hooks in reverse). A test that wants to look at what is left
 * runs with BOX_KEEP_TEST_DIRS=1.
 */
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

const made = new Set<string>();
const roots = [...new Set([os.tmpdir(), '/tmp'].map((d) => path.resolve(d)))];
const record = (dir: string) => {
  if (roots.includes(path.dirname(path.resolve(dir)))) made.add(dir);
  return dir;
};

const patched = Symbol.for('box.test.mkdtemp');
const holder = globalThis as { [patched]?: boolean };
if (!holder[patched]) {
  holder[patched] = true;
  const { mkdtempSync, mkdtemp } = fs;
  const promised = fs.promises.mkdtemp;
  fs.mkdtempSync = ((prefix: string, options?: fs.EncodingOption) => record(String(mkdtempSync(prefix, options)))) as typeof fs.mkdtempSync;
  fs.promises.mkdtemp = (async (prefix: string, options?: fs.EncodingOption) => record(String(await promised(prefix, options)))) as typeof fs.promises.mkdtemp;
  fs.mkdtemp = ((prefix: string, ...rest: unknown[]) => {
    const cb = rest.pop() as (err: NodeJS.ErrnoException | null, dir: string) => void;
    mkdtemp(prefix, (rest[0] ?? {}) as fs.EncodingOption, (err, dir) => cb(err, err ? dir : record(dir)));
  }) as typeof fs.mkdtemp;
  syncBuiltinESMExports();
}

afterAll(() => {
  if (process.env.BOX_KEEP_TEST_DIRS === '1') return;
  for (const dir of made) {
    try {
      fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    } catch (e) {
      // a process the file left running still writes there: the dir is left, the file's result stands
      console.warn(`temp-dirs: ${dir} not removed: ${(e as Error).message}`);
    }
  }
  made.clear();
});
