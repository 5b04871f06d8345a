/**
 * Where the app's resources are (guest image recipe, agent build): BOX_RESOURCES_DIR, else
 * the repository's resources/ two folders up. This file stays at this depth on purpose: the
 * bundled service (out/main) is two folders below the root as well.
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { boxEnv } from '../../platform/settings.js';

const here = dirname(fileURLToPath(import.meta.url));
export const RESOURCES_DIR = resolve(boxEnv().resourcesDir ?? join(here, '..', '..', '..', 'resources'));
export const RECIPE_DIR = join(RESOURCES_DIR, 'guest', 'image');
export const AGENT_BUILD_PATH = join(RESOURCES_DIR, 'guest', 'build', 'box-agent');
