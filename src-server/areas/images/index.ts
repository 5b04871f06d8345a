/**
 * The one service module the CLI may load (lazily, by `box image`; .dependency-cruiser.cjs
 * allows no other): building and importing images are not HTTP operations (spec item 6:
 * "need an SDK or the CLI"), so the CLI runs this code on the service's data dir, with the
 * build's output on the terminal. Everything else the CLI does goes through the API.
 */
import { boxFolder, buildPackagesRootfs } from '../runtime/module.js';
import { QemuBoxRuntime } from '../runtime/module.js';
import { buildImage as build, type BuildOptions } from './builder.js';

export { buildAgentSync } from '../runtime/module.js';
export { computeImageKeys, ensureGuestImage, guestAgentBinary, imageCacheRoot, RESOURCES_DIR, unreferencedParts } from '../runtime/module.js';
export { IMAGE_NAME } from '@box/contract/images';
export { BoxfileError } from './boxfile.js';
export { BuildError } from './builder.js';
export { ImageStore } from './image-store.js';
export { importOciArchive } from './oci-import.js';

/**
 * Builds an image in builder boxes on the QEMU runtime (cold boots from each previous layer:
 * no warm templates); `PACKAGES` on the host with the built-in image's recipe.
 */
export function buildImage(opts: Omit<BuildOptions, 'vms' | 'packages'>) {
  return build({
    ...opts,
    vms: (dataDir) => ({ runtime: new QemuBoxRuntime(dataDir, { templates: false }), diskOf: (id) => boxFolder(dataDir, id).disk }),
    packages: buildPackagesRootfs,
  });
}
