import type { Request } from 'express';
import type { z } from 'zod';
import {
  E2BCreateBody,
  E2BForkBody,
  E2BListQuery,
  E2BRefreshBody,
  E2BSandboxIdParams,
  E2BSnapshotBody,
  E2BSnapshotsQuery,
  E2BTemplateIdParams,
  E2BTimeoutBody,
} from '@box/contract/e2b';
import { E2BConnectBody, E2BPauseBody } from '@box/contract/e2b-features';
import { NotImplemented } from '../../kernel/domain-errors.js';
import { Reply, type Method, type RouteRegistrar, type RouteSpec } from '../../platform/http/route.js';
import { ENVD_VERSION, type Sandbox, type SandboxService } from './sandbox-service.js';
import type { SnapshotService } from './snapshot-service.js';
import type { TemplateBuilds } from './templates-build.js';
import type { E2BVolumes } from './volumes.js';

/** E2B's ListedSandbox / SandboxDetail of a sandbox (`mounts`: its box's volume mounts by volume name). */
async function listed(s: Sandbox, mounts: E2BVolumes['named']) {
  return {
    sandboxID: s.box.box_id,
    templateID: s.row.template_id,
    alias: s.row.template_id,
    clientID: 'box',
    startedAt: s.row.started_at,
    endAt: s.row.end_at,
    cpuCount: s.box.vcpu_count,
    memoryMB: s.box.memory_mib,
    diskSizeMB: s.box.disk_gib * 1024,
    metadata: s.row.metadata,
    state: s.state,
    envdVersion: ENVD_VERSION,
    volumeMounts: await mounts(s.row.org_id, s.box.volume_mounts),
  };
}

/**
 * What create, connect and resume answer: where envd is and the token it wants, and the
 * domain the SDK's `getHost(port)` builds `<port>-<sandboxID>.<domain>` from: Box's ingress
 * (`box.localhost:<ingress port>`, network/ingress/ingress-routing.ts), which reaches any
 * port of the sandbox.
 */
function created(s: Sandbox, domain: string | null) {
  return {
    sandboxID: s.box.box_id,
    templateID: s.row.template_id,
    alias: s.row.template_id,
    clientID: 'box',
    envdVersion: ENVD_VERSION,
    envdAccessToken: s.row.access_token,
    trafficAccessToken: s.row.access_token,
    domain,
  };
}

const NO_CONTENT = new Reply(204, null);
const PREFIX = '/e2b/api';

/**
 * E2B's REST API (the sandbox lifecycle) under /e2b/api, in E2B's wire shapes, through
 * Box's route pipeline (authentication by `X-API-Key`, billing, limits, idempotency,
 * validation, the response check under tests) with E2B's errors `{code, message}` as the
 * stock SDKs read them. A route E2B has and Box does not answers 501 naming it.
 */
export function e2bApiRoutes(
  r: RouteRegistrar,
  deps: { sandboxes: SandboxService; snapshots: SnapshotService; volumes: E2BVolumes; templates: TemplateBuilds; domain: () => string | null },
): void {
  const { sandboxes, snapshots, volumes, templates, domain } = deps;
  const mounts: E2BVolumes['named'] = (orgId, m) => volumes.named(orgId, m);
  const on = <B, Q, P>(method: Method, path: string, summary: string, spec: Omit<RouteSpec<B, Q, P>, 'method' | 'path' | 'area' | 'tag' | 'summary'>) =>
    r.add({ method, path: `${PREFIX}${path}`, area: 'box', tag: 'e2b', summary, errors: 'e2b', ...spec });
  const params = E2BSandboxIdParams;

  const create = async (body: z.infer<typeof E2BCreateBody>, auth: Parameters<SandboxService['create']>[0]) => {
    unsupportedCreate(body);
    const volumeMounts = await volumes.mounts(auth.orgId, body.volumeMounts ?? []);
    const network = { ...body.network, allowInternetAccess: body.allow_internet_access ?? undefined };
    return sandboxes
      .create(auth, {
        ...body,
        network,
        keepMemory: body.autoPauseMemory ?? undefined,
        autoResume: body.autoResume?.enabled ?? false,
        volumeMounts,
      })
      .then((s) => new Reply(201, created(s, domain())));
  };
  on('post', '/sandboxes', 'E2B: create a sandbox (older route)', { body: E2BCreateBody, handler: ({ auth, body }) => create(body, auth) });
  on('post', '/v2/sandboxes', 'E2B: create a sandbox', { body: E2BCreateBody, handler: ({ auth, body }) => create(body, auth) });

  const list = (v2: boolean) => async (auth: { orgId: string }, q: E2BListQuery) => {
    const { items, nextToken } = await sandboxes.page(auth.orgId, { ...q, states: q.state ?? (v2 ? undefined : ['running']) });
    return new Reply(200, await Promise.all(items.map((s) => listed(s, mounts))), nextToken ? { 'X-Next-Token': nextToken } : {});
  };
  on('get', '/sandboxes', 'E2B: list running sandboxes (older route)', { query: E2BListQuery, handler: ({ auth, query }) => list(false)(auth, query) });
  on('get', '/v2/sandboxes', 'E2B: list sandboxes, newest first, paged', { query: E2BListQuery, handler: ({ auth, query }) => list(true)(auth, query) });

  on('get', '/sandboxes/:sandboxID', 'E2B: a sandbox', {
    params,
    handler: async ({ auth, params: p }) => {
      const s = await sandboxes.get(auth.orgId, p.sandboxID);
      return { ...(await listed(s, mounts)), domain: domain(), lifecycle: { onTimeout: s.row.auto_pause ? 'pause' : 'kill', autoResume: s.row.auto_resume } };
    },
  });
  on('delete', '/sandboxes/:sandboxID', 'E2B: kill a sandbox', {
    params,
    handler: async ({ auth, params: p }) => (await sandboxes.kill(auth.orgId, p.sandboxID), NO_CONTENT),
  });
  on('post', '/sandboxes/:sandboxID/timeout', "E2B: set a sandbox's timeout", {
    params,
    body: E2BTimeoutBody,
    handler: async ({ auth, params: p, body }) => (await sandboxes.setTimeout(auth.orgId, p.sandboxID, body.timeout ?? 0), NO_CONTENT),
  });
  on('post', '/sandboxes/:sandboxID/refreshes', "E2B: extend a sandbox's timeout", {
    params,
    body: E2BRefreshBody,
    handler: async ({ auth, params: p, body }) => (await sandboxes.setTimeout(auth.orgId, p.sandboxID, body.duration), NO_CONTENT),
  });
  on('post', '/sandboxes/:sandboxID/pause', 'E2B: pause a sandbox (memory: false keeps only the filesystem)', {
    params,
    body: E2BPauseBody,
    handler: async ({ auth, params: p, body }) => (await sandboxes.pause(auth.orgId, p.sandboxID, body?.memory), NO_CONTENT),
  });
  const connect = { params, body: E2BConnectBody };
  on('post', '/v2/sandboxes/:sandboxID/connect', 'E2B: connect to a sandbox (resumes a paused one)', {
    ...connect,
    handler: async ({ auth, params: p, body }) =>
      new Reply(201, created(await sandboxes.connect(auth.orgId, p.sandboxID, body.timeout, body.memory), domain())),
  });
  on('post', '/sandboxes/:sandboxID/resume', 'E2B: resume a paused sandbox (older route)', {
    ...connect,
    handler: async ({ auth, params: p, body }) =>
      new Reply(201, created(await sandboxes.connect(auth.orgId, p.sandboxID, body.timeout, body.memory), domain())),
  });
  on('post', '/sandboxes/:sandboxID/fork', 'E2B: fork a sandbox', {
    params,
    body: E2BForkBody,
    handler: async ({ auth, params: p, body }) =>
      (await snapshots.fork(auth, p.sandboxID, body.count ?? 1, body.timeout)).map((f) =>
        'error' in f ? { error: f.error } : { sandbox: created(f.sandbox, domain()) },
      ),
  });
  on('post', '/sandboxes/:sandboxID/snapshots', 'E2B: snapshot a sandbox', {
    params,
    body: E2BSnapshotBody,
    handler: async ({ auth, params: p, body }) => new Reply(201, await snapshots.create(auth.orgId, p.sandboxID, body.name)),
  });
  on('get', '/snapshots', 'E2B: list snapshots', { query: E2BSnapshotsQuery, handler: async ({ auth, query }) => await snapshots.list(auth.orgId, query) });
  on('delete', '/templates/:templateID', 'E2B: delete a template (its Box image and builds) or a snapshot', {
    params: E2BTemplateIdParams,
    handler: async ({ auth, params: p }) => {
      if (await templates.has(auth.orgId, p.templateID)) await templates.delete(auth.orgId, p.templateID);
      else await snapshots.delete(auth.orgId, p.templateID);
      return NO_CONTENT;
    },
  });
  r.fallback({
    prefix: PREFIX,
    area: 'box',
    errors: 'e2b',
    error: (req: Request) => new NotImplemented(`Box's E2B API does not support ${req.method} ${req.path} (${unsupportedReason(req.path)}).`),
  });
}

function unsupportedReason(_path: string): string {
  return "not part of E2B's sandbox API that Box serves";
}

/**
 * Create options whose E2B meaning Box cannot keep: refused (501, the SDK shows the message)
 * rather than dropped, so code never runs with a restriction it believes it has.
 */
function unsupportedCreate(b: z.infer<typeof E2BCreateBody>) {
  const no = (option: string, why: string) => {
    throw new NotImplemented(`Box's E2B API does not support ${option}: ${why}.`, { param: option });
  };
  if (b.network?.egressProxy) no('network.egressProxy', "Box's egress proxy is the sandbox's only way out; chain no other proxy");
  if (b.network?.httpsPorts?.length) no('network.httpsPorts', "Box's ingress reaches a sandbox's ports over plain HTTP");
}
