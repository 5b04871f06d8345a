/**
 * The QEMU runtime's public face: the BoxRuntime adapter (the port is boxes/runtime-port.ts,
 * re-exported by boxes/ports.ts) and the guest image, agent build and layer helpers the
 * images and code areas use. service.ts builds the runtime from here.
 *
 * Layout: qemu-box-runtime.ts implements BoxRuntime on three subsystems, each with a header
 * in its main file: templates/ (warm templates, clones, warm pool, restore spares:
 * templates/templates.ts), qemu/ (the QEMU process, QMP, config, snapshots, checkpoints,
 * layers: qemu/vm.ts) and guest-image/ (image and agent builds: guest-image/guest-image.ts).
 * Beside them: a box's folder (box-folder.ts), the agent connections and exec bookkeeping
 * (agent-*.ts, guest-agent-adapter.ts, exec-*.ts, guest-files.ts), VM figures (metrics.ts,
 * proc-stat.ts), the cross-process file lock and where the resources are (resources.ts).
 */
export { QemuBoxRuntime } from './qemu-box-runtime.js';
export { boxFolder } from './box-folder.js';
export { ensureAgentBinary, buildAgentSync } from './guest-image/agent-build.js';
export { computeImageKeys, ensureGuestImage, guestAgentBinary, imageCacheRoot, RECIPE_DIR, RESOURCES_DIR } from './guest-image/guest-image.js';
export { buildPackagesRootfs, unreferencedParts } from './guest-image/image-parts.js';
export { collectLayers } from './qemu/layers.js';
