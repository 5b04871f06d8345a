import { z } from 'zod';
import { Preparation } from './preparation.js';

export const CreateApiKeyBody = z.strictObject({
  name: z.string().min(1).max(128),
  scope: z.enum(['organization', 'user']),
});
export type CreateApiKeyBody = z.infer<typeof CreateApiKeyBody>;

export const ApiKey = z.object({
  id: z.string(),
  name: z.string(),
  scope: z.enum(['organization', 'user']),
  user_id: z.string().nullable(),
  prefix: z.string(),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
});
export type ApiKey = z.infer<typeof ApiKey>;

export const Whoami = z.object({
  org_id: z.string(),
  org_name: z.string(),
  key_id: z.string(),
  key_scope: z.enum(['organization', 'user']),
  user_id: z.string().nullable(),
});
export type Whoami = z.infer<typeof Whoami>;

export const Organization = z.object({
  org_id: z.string(),
  name: z.string(),
  credits_usd_nanos: z.number().int(),
  billing_url: z.string(),
});
export type Organization = z.infer<typeof Organization>;

export const PatchOrganizationBody = z.strictObject({
  name: z.string().min(1).max(128).optional(),
  credits_usd_nanos: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
});

const APP_NAME = /^[A-Za-z0-9._-]+$/;
export const FindAppBody = z.strictObject({
  name: z.string().min(1).max(128).regex(APP_NAME, 'may contain only letters, digits, ".", "-" and "_"'),
  mint_if_missing: z.boolean().optional().default(false),
});

export const App = z.object({ id: z.string(), name: z.string(), created_at: z.string() });
export type App = z.infer<typeof App>;

export const AppSummary = z.object({
  app_id: z.string(),
  app_name: z.string(),
  box_count: z.number(),
  running_count: z.number(),
  paused_count: z.number(),
  sleeping_count: z.number(),
  failed_count: z.number(),
  cpu_requested_vcpu: z.number(),
  memory_requested_bytes: z.number(),
  disk_used_bytes: z.number(),
});
export type AppSummary = z.infer<typeof AppSummary>;

export const AuditEntry = z.object({
  id: z.number(),
  at: z.string(),
  key_id: z.string().nullable(),
  action: z.string(),
  target: z.string().nullable(),
  reason: z.string().nullable(),
  details: z.record(z.string(), z.unknown()).nullable(),
});

/** POST /v1/api-keys: the new key, with its secret shown this once. */
export const CreatedApiKey = ApiKey.extend({ secret: z.string() });

/** POST /v1/ui/login-links: a one-time web UI sign-in link. */
export const LoginLink = z.object({ url: z.string(), expires_at: z.string() });

/** GET /v1/status. `data_dir` only for organization keys; the rest comes from the areas' status providers. */
export const ServiceStatus = z.object({
  version: z.string(),
  api_version: z.string(),
  data_dir: z.string().optional(),
  /**
   * How to start this install's CLI without `box` on PATH (e.g. for an MCP host's stdio
   * command): the Node.js that runs the service and the CLI's script (organization keys only;
   * absent when the install has no CLI script).
   */
  cli: z.object({ node: z.string(), script: z.string() }).optional(),
  runtime: z.string().optional(),
  accelerator: z.unknown().optional(),
  ingress_url: z.string().optional(),
  /** Who runs the service: `desktop` (the app; quitting can ask) or `headless` (it cannot). */
  shell: z.enum(['desktop', 'headless']).optional(),
  engines: z.unknown().optional(),
  preparation: Preparation.optional(),
  /** The data dir's disk (the path is `data_dir`, shown to organization keys); `warning` when it runs low. */
  disk: z.object({ free_bytes: z.number(), total_bytes: z.number(), low: z.boolean(), warning: z.string().optional() }).optional(),
});
export type ServiceStatus = z.infer<typeof ServiceStatus>;

/** GET /v1/openapi.json (OpenAPI 3.0; its inner shape is OpenAPI's own). */
export const OpenApiDocument = z.looseObject({
  openapi: z.string(),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.unknown()),
});
