/** What the CLI uses of the images area (loaded lazily by `box image`). */
export { IMAGE_NAME } from '../contract/images.js';
export { BoxfileError } from './boxfile.js';
export { BuildError, buildImage } from './builder.js';
export { ImageStore } from './image-store.js';
export { importOciArchive } from './oci-import.js';
