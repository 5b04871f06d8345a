import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { z } from 'zod';
import { invalid, NotImplemented } from '../core/domain-errors.js';
import type { Principal } from './ports.js';
import { ENVD_VERSION, type Sandbox, type SandboxService, type SandboxState } from './sandbox-service.js';
import type { SnapshotService } from './snapshot-service.js';
import { e2bError } from './wire-errors.js';

const CreateBody = z.object({
  templateID: z.string().min(1).max(256).optional(),
  timeout: z.number().int().optional(),
  metadata: z.record(z.string(), z.string()).optional(),
  envVars: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'names must be letters, digits and "_"'), z.string()).optional(),
  autoPause: z.boolean().optional(),
  // E2B's options Box does not apply: refused with a 501 naming each (unsupportedCreate)
  allow_internet_access: z.boolean().nullish(),
  network: z.record(z.string(), z.unknown()).nullish(),
  mcp: z.unknown().optional(),
  volumeMounts: z.array(z.unknown()).nullish(),
  autoResume: z.object({ enabled: z.boolean().optional() }).nullish(),
  autoPauseMemory: z.boolean().nullish(),
});
const TimeoutBody = z.object({ timeout: z.number().int().optional() });

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const r = schema.safeParse(body ?? {});
  if (!r.success) {
    const issue = r.error.issues[0]!;
    throw invalid(`${issue.path.join('.') || 'body'}: ${issue.message}`, issue.path.join('.') || null);
  }
  return r.data;
}

/** E2B's ListedSandbox / SandboxDetail of a sandbox. */
function listed(s: Sandbox) {
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
    volumeMounts: [],
  };
}

/** What create, connect and resume answer: where envd is and the token it wants. */
function created(s: Sandbox) {
  return {
    sandboxID: s.box.box_id,
    templateID: s.row.template_id,
    alias: s.row.template_id,
    clientID: 'box',
    envdVersion: ENVD_VERSION,
    envdAccessToken: s.row.access_token,
    trafficAccessToken: s.row.access_token,
    domain: null,
  };
}

type Handler = (auth: Principal, req: Request, res: Response) => Promise<unknown> | unknown;

/**
 * E2B's REST API (the sandbox lifecycle) under /e2b/api, in E2B's wire shapes: answers and
 * errors `{code, message}` as the stock SDKs read them. A route E2B has and Box does not
 * answers 501 naming it.
 */
export function e2bApiRoutes(deps: { sandboxes: SandboxService; snapshots: SnapshotService; authenticate: (req: Request) => Principal }): Router {
  const { sandboxes, snapshots } = deps;
  const r = express.Router();
  r.use(express.json({ limit: '1mb' }));
  const on = (method: 'get' | 'post' | 'delete' | 'put' | 'patch', path: string, h: Handler, status = 200) =>
    r[method](path, (req: Request, res: Response, next: NextFunction) => {
      Promise.resolve()
        .then(() => h(deps.authenticate(req), req, res))
        .then((out) => {
          if (res.headersSent) return;
          if (out === undefined) res.status(204).end();
          else res.status(status).json(out);
        })
        .catch(next);
    });
  const id = (req: Request) => String(req.params.sandboxID);

  const create: Handler = async (auth, req) => {
    const body = parse(CreateBody, req.body);
    unsupportedCreate(body);
    return created(await sandboxes.create(auth, body));
  };
  on('post', '/sandboxes', create, 201);
  on('post', '/v2/sandboxes', create, 201);

  const list =
    (v2: boolean): Handler =>
    (auth, req, res) => {
      const q = req.query as Record<string, string | undefined>;
      const metadata = q.metadata
        ? Object.fromEntries([...new URLSearchParams(q.metadata)].map(([k, v]) => [decodeURIComponent(k), decodeURIComponent(v)]))
        : undefined;
      const states = q.state ? (q.state.split(',') as SandboxState[]) : v2 ? undefined : ['running' as const];
      for (const s of states ?? []) if (s !== 'running' && s !== 'paused') throw invalid(`state must be running or paused, not "${s}"`, 'state');
      const all = sandboxes.list(auth.orgId, { states, metadata, template: q.template });
      if (q.order === 'desc') all.reverse();
      const limit = q.limit === undefined ? 100 : Number(q.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw invalid('limit must be from 1 to 100', 'limit');
      const offset = q.nextToken ? Number(Buffer.from(q.nextToken, 'base64url').toString()) : 0;
      if (!Number.isInteger(offset) || offset < 0) throw invalid('nextToken is not one this service gave', 'nextToken');
      const page = all.slice(offset, offset + limit);
      if (offset + limit < all.length) res.setHeader('x-next-token', Buffer.from(String(offset + limit)).toString('base64url'));
      return page.map(listed);
    };
  on('get', '/sandboxes', list(false));
  on('get', '/v2/sandboxes', list(true));

  on('get', '/sandboxes/:sandboxID', (auth, req) => {
    const s = sandboxes.get(auth.orgId, id(req));
    return { ...listed(s), domain: null, lifecycle: { onTimeout: s.row.auto_pause ? 'pause' : 'kill', autoResume: false } };
  });
  on('delete', '/sandboxes/:sandboxID', async (auth, req) => void (await sandboxes.kill(auth.orgId, id(req))));
  on('post', '/sandboxes/:sandboxID/timeout', (auth, req) => void sandboxes.setTimeout(auth.orgId, id(req), parse(TimeoutBody, req.body).timeout ?? 0));
  on(
    'post',
    '/sandboxes/:sandboxID/refreshes',
    (auth, req) => void sandboxes.setTimeout(auth.orgId, id(req), z.object({ duration: z.number().int().optional() }).parse(req.body ?? {}).duration),
  );
  on('post', '/sandboxes/:sandboxID/pause', async (auth, req) => void (await sandboxes.pause(auth.orgId, id(req))));
  const connect: Handler = async (auth, req) => created(await sandboxes.connect(auth.orgId, id(req), parse(TimeoutBody, req.body).timeout));
  on('post', '/v2/sandboxes/:sandboxID/connect', connect, 201);
  on('post', '/sandboxes/:sandboxID/resume', connect, 201);
  on('post', '/sandboxes/:sandboxID/fork', async (auth, req) => {
    const b = parse(z.object({ timeout: z.number().int().optional(), count: z.number().int().min(1).max(8).optional() }), req.body);
    return (await snapshots.fork(auth, id(req), b.count ?? 1, b.timeout)).map((f) => ('error' in f ? { error: f.error } : { sandbox: created(f.sandbox) }));
  });
  on(
    'post',
    '/sandboxes/:sandboxID/snapshots',
    async (auth, req) => snapshots.create(auth.orgId, id(req), parse(z.object({ name: z.string().min(1).max(128).optional() }), req.body).name),
    201,
  );
  on('get', '/snapshots', (auth, req) => {
    const q = req.query as Record<string, string | undefined>;
    return snapshots.list(auth.orgId, { sandboxID: q.sandboxID, name: q.name });
  });
  on('delete', '/templates/:templateID', async (auth, req) => void (await snapshots.delete(auth.orgId, String(req.params.templateID))));
  r.use((req: Request, _res: Response, next: NextFunction) => {
    const what = `${req.method} ${req.path}`;
    next(new NotImplemented(`Box's E2B API does not support ${what} (${unsupportedReason(req.path)}).`));
  });
  r.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const { status, body } = e2bError(err);
    res.status(status).json(body);
  });
  return r;
}

function unsupportedReason(path: string): string {
  if (path.startsWith('/volumes') || path.startsWith('/volumecontent')) return 'E2B volumes: use Box volumes, which mount into boxes';
  if (path.startsWith('/templates') || path.startsWith('/v2/templates') || path.startsWith('/v3/templates'))
    return 'template builds: build a Box image (box image build) and use its name as the template';
  if (path.startsWith('/secrets')) return 'E2B secrets: use Box secrets with an HTTP policy';
  if (path.endsWith('/metrics')) return 'sandbox metrics: see the box in Box usage';
  if (path.endsWith('/network')) return 'E2B network rules: use a Box HTTP policy';
  return "not part of E2B's sandbox API that Box serves";
}

/**
 * Create options whose E2B meaning Box cannot keep: refused (501, the SDK shows the message)
 * rather than dropped, so code never runs with a restriction it believes it has.
 */
function unsupportedCreate(b: z.infer<typeof CreateBody>) {
  const no = (option: string, why: string) => {
    throw new NotImplemented(`Box's E2B API does not support ${option}: ${why}.`, { param: option });
  };
  if (b.allow_internet_access === false || (b.network && Object.keys(b.network).length > 0))
    no(b.network ? 'network' : 'allowInternetAccess', "E2B's network rules are not applied on Box: restrict a box's egress with a Box HTTP policy");
  if (b.mcp !== undefined && b.mcp !== null) no('mcp', "E2B's MCP gateway is not in Box's images: Box serves its own MCP server at /mcp");
  if (b.volumeMounts?.length) no('volumeMounts', 'E2B volumes: use Box volumes, which mount into boxes');
  if (b.autoResume?.enabled) no('lifecycle.autoResume', 'a paused sandbox resumes on Sandbox.connect(), not on traffic');
  if (b.autoPauseMemory === false) no('lifecycle.keepMemory: false', "Box's pause always keeps memory");
}
