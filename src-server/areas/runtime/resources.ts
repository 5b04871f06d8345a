/**
 * Where the app's resources are (guest image recipe, agent build): BOX_RESOURCES_DIR, else
 * the nearest `resources/` folder with a `guest/` in it above this module: the repository's
 * root both from the sources (src-server/areas/runtime/) and from the bundled service
 * (out/main/), which sit at different depths.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { boxEnv } from '../../platform/settings.js';

function nearestResources(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'resources', 'guest'))) return join(dir, 'resources');
    if (dirname(dir) === dir) return join(from, '..', '..', '..', 'resources');
  }
}

export const RESOURCES_DIR = resolve(boxEnv().resourcesDir ?? nearestResources(dirname(fileURLToPath(import.meta.url))));
export const RECIPE_DIR = join(RESOURCES_DIR, 'guest', 'image');
export const AGENT_BUILD_PATH = join(RESOURCES_DIR, 'guest', 'build', 'box-agent');
