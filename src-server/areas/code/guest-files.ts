import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RESOURCES_DIR } from '../runtime/module.js';

/** Where the code daemon lives in a box (a tmpfs: it goes with the VM's memory). */
export const GUEST_DIR = '/run/box-code';
/** The daemon's loopback port in the box. */
export const GUEST_PORT = 49999;

const SOURCE_DIR = join(RESOURCES_DIR, 'guest', 'code');

/** The daemon's files (resources/guest/code), written into a box that has no daemon yet. */
export const GUEST_FILES = ['boxcode.py', 'kernels.py', 'pyrun.py', 'charts.py', 'jsrun.js', 'rrun.R'].map((name) => ({
  name,
  content: readFileSync(join(SOURCE_DIR, name)),
}));
