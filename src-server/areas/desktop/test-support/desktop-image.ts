/**
 * The `desktop` image for VM tests and benches: built once from the shipped recipe
 * (resources/images/desktop, as `box desktop image` does) into a store shared by every
 * test data dir, `<BOX_IMAGE_CACHE or os tmpdir>/desktop-store` (its layers chain to the
 * built-in image in the same cache), then named in the test's own data dir: a copy of the
 * manifest, whose disk is the shared layer. The first build takes minutes (the packages
 * with mmdebstrap on the host, the recipe's own files in builder boxes); later runs find it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildImage, ImageStore, RESOURCES_DIR } from '../../images/index.js';

const storeDir = () => path.join(process.env.BOX_IMAGE_CACHE ?? os.tmpdir(), 'desktop-store');

/** Whether the shared store has the image (a recipe change since is rebuilt by provideDesktopImage). */
export const desktopImageBuilt = () => fs.existsSync(path.join(storeDir(), 'user-images', 'refs', 'desktop.json'));

export async function provideDesktopImage(dataDir: string): Promise<void> {
  const dir = storeDir();
  // the real path: builder boxes' sockets live below it, and unix socket paths are short
  const shared = new ImageStore(fs.existsSync(dir) ? fs.realpathSync(dir) : dir);
  const recipe = path.join(RESOURCES_DIR, 'images', 'desktop');
  // the builder reuses every layer whose step is unchanged: a recipe change rebuilds from there
  await buildImage({ store: shared, boxfile: fs.readFileSync(path.join(recipe, 'Boxfile'), 'utf8'), context: recipe, name: 'desktop' });
  const refs = path.join(dataDir, 'user-images', 'refs');
  fs.mkdirSync(refs, { recursive: true });
  fs.copyFileSync(path.join(shared.root, 'refs', 'desktop.json'), path.join(refs, 'desktop.json'));
}
