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
  // E2B's options Box does not apply: refused with a 501 naming each
  maskRequestHost: z.string().optional(),
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
