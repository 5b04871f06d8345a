import { z } from 'zod';

/**
 * E2B's options and routes that map onto Box features (issue 33): network rules (a Box HTTP
 * policy), metrics (Box's per-box meters), the pause kinds and template builds (Box's image
 * builder). Shapes follow E2B's OpenAPI document (e2b-dev/infra, spec/openapi.yml).
 */

const destinations = z.array(z.string().min(1).max(253)).max(100);
const transforms = z.record(
  z.string().min(1).max(253),
  z.array(z.object({ transform: z.object({ headers: z.record(z.string(), z.string()).optional() }).optional() })).max(16),
);

/** E2B's SandboxNetworkConfig (create). `allowPublicTraffic`: Box's sandbox URL always wants the traffic token. */
export const E2BNetworkConfig = z.object({
  allowOut: destinations.optional(),
  denyOut: destinations.optional(),
  allowPublicTraffic: z.boolean().optional(),
  rules: transforms.optional(),
  // the Host header the sandbox's servers get from its getHost addresses; `${PORT}` is the port
  maskRequestHost: z
    .string()
    .max(300)
    .refine((h) => /^[A-Za-z0-9.\-:[\]_]+$/.test(h.replaceAll('${PORT}', '1')), 'must be a host name, optionally with :port or ${PORT}')
    .optional(),
  // E2B's options Box does not apply: refused with a 501 naming each
  egressProxy: z.unknown().optional(),
  httpsPorts: z.array(z.number().int()).optional(),
});

/** E2B's SandboxNetworkUpdateConfig (`PUT /sandboxes/{id}/network`): replaces the rules; an omitted field is cleared. */
export const E2BNetworkUpdateBody = z.object({
  allow_internet_access: z.boolean().optional(),
  allowOut: destinations.optional(),
  denyOut: destinations.optional(),
  rules: transforms.optional(),
  egressProxy: z.unknown().optional(),
});

/** `GET /sandboxes/{id}/metrics`: Unix seconds. */
export const E2BMetricsQuery = z.object({
  start: z.coerce.number().int().min(0).optional(),
  end: z.coerce.number().int().min(0).optional(),
});

/** `GET /sandboxes/metrics?sandbox_ids=a,b`. */
export const E2BMetricsListQuery = z.object({
  sandbox_ids: z
    .string()
    .min(1)
    .max(4096)
    .transform((s) => s.split(',').filter(Boolean)),
});

/** `POST /sandboxes/{id}/pause`: `memory: false` keeps only the filesystem (resume reboots). */
export const E2BPauseBody = z.object({ memory: z.boolean().optional() }).nullish();

/** `POST /v2/sandboxes/{id}/connect`: `memory: false` resumes from the disk only. */
export const E2BConnectBody = z.object({ timeout: z.number().int().optional(), memory: z.boolean().optional() });

/** E2B's SandboxMetric. */
export const E2BMetric = z.object({
  timestamp: z.string(),
  timestampUnix: z.number().int(),
  cpuCount: z.number().int(),
  cpuUsedPct: z.number(),
  memUsed: z.number().int(),
  memTotal: z.number().int(),
  memCache: z.number().int(),
  diskUsed: z.number().int(),
  diskTotal: z.number().int(),
});
export const E2BMetrics = z.array(E2BMetric);
export const E2BSandboxesWithMetrics = z.object({ sandboxes: z.record(z.string(), E2BMetric) });

/** `POST /v3/templates` (E2B's TemplateBuildRequestV3): a build of a template, by name (`name:tag` allowed). */
export const E2BTemplateRequestBody = z.object({
  name: z.string().min(1).max(128).optional(),
  alias: z.string().min(1).max(128).optional(),
  tags: z.array(z.string().min(1).max(64)).max(16).nullish(),
  cpuCount: z.number().int().min(1).max(8).nullish(),
  memoryMB: z.number().int().min(128).max(16384).nullish(),
  minFreeDiskMb: z.number().int().min(0).nullish(),
  teamID: z.string().optional(),
});

export const E2BTemplateStep = z.object({
  type: z.string().min(1).max(32),
  args: z.array(z.string().max(65536)).max(256).optional(),
  filesHash: z
    .string()
    .regex(/^[0-9a-f]{64}$/, "must be the SDK's sha256 of the files")
    .optional(),
  force: z.boolean().optional(),
});

/** `POST /v2/templates/{templateID}/builds/{buildID}` (E2B's TemplateBuildStartV2). */
export const E2BTemplateBuildStart = z.object({
  fromImage: z.string().max(256).optional(),
  fromTemplate: z.string().max(256).optional(),
  fromImageRegistry: z.unknown().optional(),
  force: z.boolean().optional(),
  steps: z.array(E2BTemplateStep).max(256).optional(),
  startCmd: z.string().max(65536).optional(),
  readyCmd: z.string().max(65536).optional(),
});

/** An id in a path: no NUL (PostgreSQL's text refuses it; an id holding one is no row's). */
const pathId = (field: string, max = 256) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine((s) => !s.includes('\0'), `${field} must not hold a NUL character`);

export const E2BTemplateBuildParams = z.object({ templateID: pathId('templateID'), buildID: pathId('buildID', 64) });
export const E2BTemplateFilesParams = z.object({
  templateID: pathId('templateID'),
  hash: z.string().regex(/^[0-9a-f]{64}$/, "must be the SDK's sha256 of the files"),
});
export const E2BAliasParams = z.object({ alias: z.string().min(1).max(256) });
export const E2BBuildStatusQuery = z.object({ logsOffset: z.coerce.number().int().min(0).optional(), limit: z.coerce.number().int().min(1).optional() });

/** `POST /templates/tags` (E2B's AssignTemplateTagsRequest): `target` is `name:tag` (a build), `tags` what it gets too. */
export const E2BAssignTagsBody = z.object({ target: z.string().min(1).max(256), tags: z.array(z.string().max(64)).max(64) });
/** `DELETE /templates/tags` (E2B's DeleteTemplateTagsRequest): tags of the template `name` to remove. */
export const E2BDeleteTagsBody = z.object({ name: z.string().min(1).max(256), tags: z.array(z.string().max(64)).max(64) });
export const E2BAssignedTags = z.object({ tags: z.array(z.string()), buildID: z.string() });
export const E2BTemplateTag = z.object({ tag: z.string(), buildID: z.string(), createdAt: z.string() });

export const E2BTemplateRequested = z.object({
  templateID: z.string(),
  buildID: z.string(),
  names: z.array(z.string()),
  aliases: z.array(z.string()),
  tags: z.array(z.string()),
  public: z.boolean(),
});
export const E2BTemplateFileUpload = z.object({ present: z.boolean(), url: z.string().optional(), headers: z.record(z.string(), z.string()).optional() });
const BuildLogEntry = z.object({ timestamp: z.string(), level: z.enum(['debug', 'info', 'warn', 'error']), message: z.string(), step: z.string().optional() });
export const E2BTemplateBuildInfo = z.object({
  templateID: z.string(),
  buildID: z.string(),
  status: z.enum(['building', 'waiting', 'ready', 'error']),
  logEntries: z.array(BuildLogEntry),
  logs: z.array(z.string()),
  reason: z.object({ message: z.string(), step: z.string().optional(), logEntries: z.array(BuildLogEntry).optional() }).optional(),
});
export const E2BTemplateAlias = z.object({ templateID: z.string(), public: z.boolean() });
/** A 202 with an empty JSON object (E2B sends no body; the SDK reads none). */
export const E2BAccepted = z.object({});
