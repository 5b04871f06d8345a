import { z } from 'zod';
import { queryInt } from './common.js';

/**
 * E2B's secrets, volumes and template listing (issue 33) as Box serves them at /e2b/api, on
 * Box's secrets, volumes and image builds. Shapes and limits follow E2B's OpenAPI document
 * (e2b-dev/infra, spec/openapi.yml); e2b-spec.test.ts checks them against its generated types.
 */

const utf8Bytes = (s: string) => new TextEncoder().encode(s).length;

/** E2B's SecretMetadata: at most 32 entries, keys up to 128 bytes, values up to 1024, 8192 in all. */
const SecretMetadata = z
  .record(
    z.string().refine((k) => utf8Bytes(k) <= 128, 'keys must be at most 128 bytes'),
    z.string().refine((v) => utf8Bytes(v) <= 1024, 'values must be at most 1024 bytes'),
  )
  .refine((m) => Object.keys(m).length <= 32, 'must have at most 32 entries')
  .refine((m) => Object.entries(m).reduce((n, [k, v]) => n + utf8Bytes(k) + utf8Bytes(v), 0) <= 8192, 'must be at most 8192 bytes in all');

/** Box keeps the value as a Box secret: at most 64 KiB. */
const secretValue = z.string().refine((v) => utf8Bytes(v) <= 64 * 1024, 'must be at most 65536 bytes (64 KiB) in UTF-8');

/** `POST /secrets` (E2B's NewSecret). */
export const E2BNewSecret = z.object({ name: z.string().min(1).max(128), value: secretValue, metadata: SecretMetadata.optional() });
/** `POST /secrets/{secretID}` (E2B's SecretUpdate): a new version. */
export const E2BSecretUpdate = z.object({ value: secretValue, metadata: SecretMetadata.optional() });
/** A secret by its `sec_` id or its name. */
/** An id in a path: no NUL (PostgreSQL's text refuses it; an id holding one is no row's). */
const pathId = (field: string, max = 256) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine((s) => !s.includes('\0'), `${field} must not hold a NUL character`);

export const E2BSecretParams = z.object({ secretID: pathId('secretID') });
export const E2BSecretsQuery = z.object({
  limit: queryInt(1, 100, 100),
  /** The `X-Next-Token` of the previous page. */
  nextToken: z
    .string()
    .regex(/^\d{1,9}$/, 'must be the X-Next-Token of the previous page')
    .optional(),
});

/** Box volume names: letters, digits, ".", "-" and "_". */
export const E2BNewVolume = z.object({
  name: z
    .string()
    .min(1)
    .max(128)
    .regex(/^[A-Za-z0-9._-]+$/, 'may contain only letters, digits, ".", "-" and "_"'),
});
export const E2BVolumeParams = z.object({ volumeID: pathId('volumeID') });

/** E2B's SandboxVolumeMount: a volume by name, at an absolute path of the sandbox (Box's mount path rule). */
export const E2BVolumeMount = z.object({
  name: z
    .string()
    .min(1)
    .max(128)
    .regex(/^[A-Za-z0-9._-]+$/, 'a Box volume name: letters, digits, ".", "-" and "_"'),
  path: z
    .string()
    .regex(/^\/[A-Za-z0-9._\-/]{0,254}$/, 'must be an absolute path of letters, digits, ".", "-", "_" and "/"')
    .refine((p) => !p.split('/').includes('..'), 'must not contain ".."'),
});

/** E2B's Secret: metadata only, never the value. */
export const E2BSecret = z.object({
  secretID: z.string(),
  name: z.string(),
  currentVersion: z.number().int(),
  metadata: z.record(z.string(), z.string()),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export const E2BVolume = z.object({ volumeID: z.string(), name: z.string() });
export const E2BVolumeAndToken = E2BVolume.extend({ token: z.string() });

const BuildStatus = z.enum(['building', 'waiting', 'ready', 'error']);
/** E2B's TemplateBuild (a build of a template, in `GET /templates/{id}`). */
const E2BTemplateBuild = z.object({
  buildID: z.string(),
  status: BuildStatus,
  createdAt: z.string(),
  updatedAt: z.string(),
  finishedAt: z.string().optional(),
  cpuCount: z.number().int(),
  memoryMB: z.number().int(),
  diskSizeMB: z.number().int().optional(),
  envdVersion: z.string().optional(),
});
/** E2B's Template (`GET /templates`). */
export const E2BTemplate = z.object({
  templateID: z.string(),
  buildID: z.string(),
  cpuCount: z.number().int(),
  memoryMB: z.number().int(),
  diskSizeMB: z.number().int(),
  public: z.boolean(),
  aliases: z.array(z.string()),
  names: z.array(z.string()),
  createdAt: z.string(),
  updatedAt: z.string(),
  createdBy: z.null(),
  lastSpawnedAt: z.string().nullable(),
  spawnCount: z.number().int(),
  buildCount: z.number().int(),
  envdVersion: z.string(),
  buildStatus: BuildStatus,
});
/** E2B's TemplateWithBuilds (`GET /templates/{id}`). */
export const E2BTemplateWithBuilds = z.object({
  templateID: z.string(),
  public: z.boolean(),
  aliases: z.array(z.string()),
  names: z.array(z.string()),
  createdAt: z.string(),
  updatedAt: z.string(),
  lastSpawnedAt: z.string().nullable(),
  spawnCount: z.number().int(),
  builds: z.array(E2BTemplateBuild),
});

/**
 * E2B's volume content API (`/volumecontent/{volumeID}/...`, E2B's spec/openapi-volumecontent.yml):
 * a volume's files without a sandbox, authorized by the volume's token (`Authorization: Bearer`).
 * Paths are relative to the volume's root (a leading "/" allowed); a ".." segment is refused.
 */
const volumePath = z
  .string()
  .min(1)
  .max(4096)
  .refine((p) => !p.includes('\0'), 'must not hold a NUL character')
  .refine((p) => !p.split('/').includes('..'), 'must not contain a ".." segment (paths stay inside the volume)');
const queryUint32 = z
  .string()
  .regex(/^\d{1,10}$/, 'must be a non-negative integer')
  .transform(Number)
  .pipe(z.number().int().max(0xffffffff, 'must fit in 32 bits'))
  .optional();
const queryMode = queryUint32.pipe(z.number().int().max(0o7777, 'must be a mode of at most 0o7777 (4095)').optional());
const queryBool = z.enum(['true', 'false']).optional();
export const E2BVolumePathQuery = z.object({ path: volumePath });
export const E2BVolumeDirQuery = z.object({ path: volumePath, depth: queryInt(0, 10, 1) });
/** `POST .../dir` and `PUT .../file`: owner and mode of what is made; `force`: make missing parents (and, for a file, replace one). */
export const E2BVolumeCreateQuery = z.object({ path: volumePath, uid: queryUint32, gid: queryUint32, mode: queryMode, force: queryBool });
export const E2BVolumeMetadataBody = z.object({
  uid: z.number().int().min(0).max(0xffffffff).optional(),
  gid: z.number().int().min(0).max(0xffffffff).optional(),
  mode: z.number().int().min(0).max(0o7777).optional(),
});
/** E2B's VolumeEntryStat. */
export const E2BVolumeEntryStat = z.object({
  name: z.string(),
  type: z.enum(['unknown', 'file', 'directory', 'symlink']),
  path: z.string(),
  size: z.number().int(),
  mode: z.number().int(),
  uid: z.number().int(),
  gid: z.number().int(),
  atime: z.string(),
  mtime: z.string(),
  ctime: z.string(),
  target: z.string().optional(),
});
