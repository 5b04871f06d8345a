/**
 * The QEMU runtime's public face: the BoxRuntime adapter (the port is boxes/runtime-port.ts,
 * re-exported by boxes/ports.ts) and the guest image, agent build and layer helpers the
 * images and code areas use. service.ts builds the runtime from here.
 */
export { QemuBoxRuntime } from './qemu-box-runtime.js';
export { boxFolder } from './box-folder.js';
export { ensureAgentBinary, buildAgentSync } from './agent-build.js';
export { computeImageKeys, ensureGuestImage, guestAgentBinary, imageCacheRoot, RECIPE_DIR, RESOURCES_DIR, unreferencedParts } from './guest-image.js';
export { collectLayers } from './layers.js';
