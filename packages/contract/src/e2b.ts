import { z } from 'zod';
import { queryInt } from './common.js';
import { E2BNetworkConfig } from './e2b-features.js';
import { E2BVolumeMount } from './e2b-rest.js';

/**
 * E2B's REST API as Box serves it at /e2b/api (e2b/): E2B's wire shapes, not Box's, so
 * the stock `e2b` SDK runs unchanged. Field names and ranges follow E2B's OpenAPI document
 * (e2b-dev/infra, spec/openapi.yml); options Box cannot keep are accepted here and refused
 * by the route with a 501 naming them.
 */

const SandboxState = z.enum(['running', 'paused']);

export const E2BCreateBody = z.object({
  templateID: z.string().min(1).max(256).optional(),
  timeout: z.number().int().optional(),
  metadata: z.record(z.string(), z.string()).optional(),
  envVars: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'names must be letters, digits and "_"'), z.string()).optional(),
  autoPause: z.boolean().optional(),
  /** false: as `network.denyOut: ['0.0.0.0/0']` (a Box HTTP policy, see contract/e2b-features.ts). */
  allow_internet_access: z.boolean().nullish(),
  network: E2BNetworkConfig.nullish(),
  /** E2B's MCP gateway: the sandbox's `mcp-gateway` command answers what Box offers instead. */
  mcp: z.unknown().optional(),
  autoResume: z.object({ enabled: z.boolean().optional() }).nullish(),
  /** `lifecycle.keepMemory`: false makes the pause at timeout keep only the filesystem. */
  autoPauseMemory: z.boolean().nullish(),
  /** E2B volumes (Box volumes) by name: the box's volume mounts. */
  volumeMounts: z.array(E2BVolumeMount).max(8).nullish(),
});

export const E2BTimeoutBody = z.object({ timeout: z.number().int().optional() });
export const E2BRefreshBody = z.object({ duration: z.number().int().optional() });
/** E2B allows up to 100 forks a call; Box's fork makes at most 8 boxes. */
export const E2BForkBody = z.object({ timeout: z.number().int().min(0).optional(), count: z.number().int().min(1).max(8).optional() });
export const E2BSnapshotBody = z.object({ name: z.string().min(1).max(128).optional() });

/** `GET /v2/sandboxes` (the older `GET /sandboxes` takes the same, listing running sandboxes by default). */
export const E2BListQuery = z.object({
  /** `k1=v1&k2=v2`, each key and value URL-encoded. */
  metadata: z.string().max(4096).optional(),
  /** One or more states, comma-separated (E2B's form style, explode false). */
  state: z
    .string()
    .optional()
    .transform((s, ctx) => {
      if (s === undefined) return undefined;
      const states = s.split(',');
      for (const v of states) {
        if (!SandboxState.safeParse(v).success) {
          ctx.addIssue({ code: 'custom', message: `state must be running or paused, not "${v}"` });
          return z.NEVER;
        }
      }
      return states as Array<z.infer<typeof SandboxState>>;
    }),
  template: z.string().max(256).optional(),
  /** By start time; E2B's default is newest first. */
  order: z.enum(['asc', 'desc']).optional(),
  /** Sandboxes started at or after this time. */
  startedAfter: z.iso.datetime({ offset: true }).optional(),
  limit: queryInt(1, 100, 100),
  /** The `X-Next-Token` of the previous page. */
  nextToken: z.string().max(512).optional(),
});
export type E2BListQuery = z.infer<typeof E2BListQuery>;

export const E2BSnapshotsQuery = z.object({ sandboxID: z.string().max(256).optional(), name: z.string().max(256).optional() });

// no NUL: PostgreSQL's text refuses it (an id holding one is not any sandbox's)
export const E2BSandboxIdParams = z.object({
  sandboxID: z
    .string()
    .min(1)
    .max(256)
    .refine((s) => !s.includes('\0'), 'sandboxID must not hold a NUL character'),
});
export const E2BTemplateIdParams = z.object({
  templateID: z
    .string()
    .min(1)
    .max(256)
    .refine((s) => !s.includes('\0'), 'templateID must not hold a NUL character'),
});

/** What create, connect and resume answer: where envd is and the token it wants. */
export const E2BCreated = z.object({
  sandboxID: z.string(),
  templateID: z.string(),
  alias: z.string(),
  clientID: z.string(),
  envdVersion: z.string(),
  envdAccessToken: z.string(),
  trafficAccessToken: z.string(),
  /** `box.localhost:<ingress port>`: the SDK's `getHost(port)` is `<port>-<sandboxID>.<domain>` (Box's ingress). */
  domain: z.string().nullable(),
});

/** E2B's ListedSandbox. */
export const E2BListedSandbox = z.object({
  sandboxID: z.string(),
  templateID: z.string(),
  alias: z.string(),
  clientID: z.string(),
  startedAt: z.string(),
  endAt: z.string(),
  cpuCount: z.number().int(),
  memoryMB: z.number().int(),
  diskSizeMB: z.number().int(),
  metadata: z.record(z.string(), z.string()),
  state: SandboxState,
  envdVersion: z.string(),
  volumeMounts: z.array(z.object({ name: z.string(), path: z.string() })),
});

/** E2B's SandboxDetail. */
export const E2BSandboxDetail = E2BListedSandbox.extend({
  domain: z.string().nullable(),
  lifecycle: z.object({ onTimeout: z.enum(['pause', 'kill']), autoResume: z.boolean() }),
});

export const E2BError = z.object({ code: z.number().int(), message: z.string() });
export const E2BForkResult = z.union([z.object({ sandbox: E2BCreated }), z.object({ error: E2BError })]);
export const E2BSnapshot = z.object({ snapshotID: z.string(), names: z.array(z.string()) });
/** A 204 answer: nothing is sent (the response check skips 204). */
export const E2BNoContent = z.null();
