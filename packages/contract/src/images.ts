import { z } from 'zod';

/**
 * Box images (issue 12). Listing, reading and deleting are HTTP operations; building and
 * importing are not (spec item 6: "need an SDK or the CLI"): the `box` CLI runs them on
 * this machine through the same service code, on the same data dir.
 */
export const IMAGE_NAME = /^[a-z0-9][a-z0-9._-]{0,127}$/;
const ImageName = z.string().regex(IMAGE_NAME, 'must be 1-128 lowercase letters, digits, ".", "-" or "_", starting with a letter or digit');

export const ImageNameParams = z.object({ name: ImageName });

/** What a box made from the image runs and how (Boxfile ENV/WORKDIR/USER/CMD, OCI config). */
export const ImageRunConfig = z.object({
  env: z.record(z.string(), z.string()),
  workdir: z.string().nullable(),
  user: z.string().nullable(),
  cmd: z.array(z.string()).nullable(),
});
export type ImageRunConfig = z.infer<typeof ImageRunConfig>;

export const Image = z.object({
  name: z.string(),
  /** sha256 of the image's content (OCI archive) or of its build inputs (Boxfile, built-in recipe). */
  digest: z.string(),
  /** Bytes this image's own layers take on disk (shared base layers are not counted). */
  size_bytes: z.number().int().min(0),
  created_at: z.string(),
  source: z.enum(['builtin', 'boxfile', 'oci']),
  /** The image it was built FROM (boxfile), else null. */
  base: z.string().nullable(),
  /** Live boxes made from it. */
  boxes: z.array(z.string()),
  config: ImageRunConfig,
});
export type Image = z.infer<typeof Image>;

export const ImageList = z.object({ data: z.array(Image) });
