import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ImageStore } from './image-store.js';

/** The lineage decides what the runtime gives an image's VMs (a desktop image's larger TCG cache, tcg-cache.test.ts). */
describe('an image resolved for the runtime', () => {
  it('names its lineage: it walks its bases by name, down to the built-in image', async () => {
    const store = new ImageStore(mkdtempSync(join(tmpdir(), 'box-lineage-')));
    mkdirSync(join(store.root, 'refs'), { recursive: true });
    const manifest = (name: string, b: string | null) =>
      writeFileSync(
        join(store.root, 'refs', `${name}.json`),
        JSON.stringify({
          name,
          digest: `d-${name}`,
          source: 'boxfile',
          base: b,
          created_at: '',
          disk: `/d/${name}.qcow2`,
          diskFormat: 'qcow2',
          ownFiles: [],
          config: {},
        }),
      );
    manifest('desktop', 'debian');
    manifest('my-desktop', 'desktop');
    manifest('orphan', 'gone');
    manifest('loop-a', 'loop-b');
    manifest('loop-b', 'loop-a');
    expect((await store.resolve('my-desktop'))?.lineage).toEqual(['my-desktop', 'desktop', 'debian']);
    expect((await store.resolve('orphan'))?.lineage).toEqual(['orphan', 'gone']);
    expect((await store.resolve('loop-a'))?.lineage).toEqual(['loop-a', 'loop-b']);
    expect(await store.resolve('nope')).toBeUndefined();
  });
});
