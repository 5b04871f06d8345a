import { createContextValues } from '@connectrpc/connect';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import crypto from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppBase } from '../app-context.js';
import { ApiError } from '../http/api-errors.js';
import { renderError, setErrorStyle } from '../http/error-handler.js';
import { admit } from '../http/route.js';
import { Filesystem as FilesystemService } from './envd/gen/filesystem_pb.js';
import { Process as ProcessService } from './envd/gen/process_pb.js';
import type { EnvdFilesHttp } from './envd/files-http.js';
import type { EnvdFilesystem } from './envd/filesystem.js';
import type { EnvdProcesses } from './envd/processes.js';
import { basicUser, defaultUser, TARGET, type Target } from './envd/target.js';
import { e2bJupyterRoutes } from './jupyter-routes.js';
import type { CodePort } from './ports.js';
import type { SandboxService } from './sandbox-service.js';

const ENVD_PORT = 49983;
const JUPYTER_PORT = 49999;

const refused = (status: 400 | 401 | 501 | 502, message: string) =>
  new ApiError(status, status === 401 ? 'authentication_error' : status === 400 ? 'invalid_request_error' : 'server_error', message);

/** Answers that last (a process's output, a directory watch, a cell's run): the streams' pool of the limiter. */
const LONG_LIVED = new Set([
  ...[ProcessService, FilesystemService].flatMap((s) => s.methods.filter((m) => m.methodKind !== 'unary').map((m) => `/${s.typeName}/${m.name}`)),
  '/execute',
]);

const sameToken = (a: string, b: string) => a.length === b.length && crypto.timingSafeEqual(Buffer.from(a), Buffer.from(b));

/**
 * The sandbox URL (/e2b/sandbox): what E2B's SDKs send to envd and to the code interpreter
 * when E2B_SANDBOX_URL is set. `E2b-Sandbox-Id` names the sandbox, `E2b-Sandbox-Port` the
 * service in it (49983 envd, 49999 the code interpreter); the sandbox's access token (given
 * only to API-key holders at create/connect) must come as `X-Access-Token` or
 * `E2B-Traffic-Access-Token`. A sandbox that is gone or paused answers 502, as E2B's proxy.
 *
 * Not registry routes: envd speaks connect-rpc (its own framing, streams both ways, its own
 * error codes) and the code interpreter streams NDJSON, so there is no JSON body to validate
 * or answer to replay. They take the pipeline's admission (`admit`: billing, the
 * organization's concurrency limit, streams in their own pool) once the access token has
 * named the sandbox, and its error rendering in E2B's style.
 */
export function e2bSandboxRoutes(deps: {
  gate: Pick<AppBase, 'billing' | 'limiter' | 'log'>;
  sandboxes: SandboxService;
  processes: EnvdProcesses;
  filesystem: EnvdFilesystem;
  filesHttp: EnvdFilesHttp;
  code: CodePort;
}): Router {
  const targets = new WeakMap<IncomingMessage, Target>();
  const r = express.Router();
  r.use(async (req: Request, res: Response, next: NextFunction) => {
    setErrorStyle(req, 'e2b');
    const id = req.headers['e2b-sandbox-id'];
    if (typeof id !== 'string' || !id) return next(refused(400, 'The E2b-Sandbox-Id header is required: it names the sandbox.'));
    const row = await deps.sandboxes.row(id);
    if (!row) return next(refused(502, `The sandbox ${id} was not found: it was killed or timed out.`));
    const token = req.headers['x-access-token'] ?? req.headers['e2b-traffic-access-token'];
    if (typeof token !== 'string' || !sameToken(token, row.access_token))
      return next(refused(401, `Missing or wrong access token for sandbox ${id}: send the envdAccessToken that create or connect answered.`));
    // a paused sandbox created with lifecycle.autoResume resumes on its traffic (E2B's rule)
    void deps.sandboxes
      .autoResume(id)
      .catch((e: unknown) => deps.gate.log.warn(`e2b: auto-resume of sandbox ${id} failed`, e))
      .then(async () => {
        const box = await deps.sandboxes.box(id);
        if (!box || box.status !== 'running') return next(refused(502, `The sandbox ${id} is not running (${box?.status ?? 'gone'}): connect to resume it.`));
        try {
          await admit(deps.gate, row.org_id, res, { stream: LONG_LIVED.has(req.path) });
        } catch (e) {
          return next(e);
        }
        targets.set(req, { row, box, user: basicUser(req.headers.authorization) ?? defaultUser(box), drop: () => res.destroy() });
        next();
      });
  });
  const jupyter = e2bJupyterRoutes(
    deps.code,
    (req) => targets.get(req)!.box,
    (req) => targets.get(req)!.row.envs,
  );
  const envd = express.Router();
  envd.get('/health', (_req, res) => void res.status(204).end());
  const wrap = (h: (t: Target, req: Request, res: Response) => Promise<unknown>) => (req: Request, res: Response, next: NextFunction) => {
    h(targets.get(req)!, req, res)
      .then((out) => {
        if (!res.headersSent && out !== undefined) res.json(out);
      })
      .catch(next);
  };
  envd.get(
    '/files',
    wrap((t, req, res) => deps.filesHttp.download(t, req, res)),
  );
  envd.post(
    '/files',
    wrap((t, req) => deps.filesHttp.upload(t, req)),
  );
  envd.use(
    connectNodeAdapter({
      routes(router) {
        router.service(ProcessService, deps.processes.impl() as never);
        router.service(FilesystemService, deps.filesystem.impl() as never);
      },
      contextValues: (req) => createContextValues().set(TARGET, targets.get(req as IncomingMessage)),
      fallback: (req, res) => {
        const { status, body } = renderError(req as IncomingMessage, refused(501, `envd on Box does not serve ${req.method} ${req.url}.`), deps.gate);
        (res as ServerResponse).writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
      },
    }),
  );
  r.use((req: Request, res: Response, next: NextFunction) => {
    const port = Number(req.headers['e2b-sandbox-port'] ?? ENVD_PORT);
    if (port === ENVD_PORT) return envd(req, res, next);
    if (port === JUPYTER_PORT) return jupyter(req, res, next);
    next(
      refused(
        502,
        `Port ${port} of sandbox ${targets.get(req)!.box.box_id} is not served: Box serves envd (${ENVD_PORT}) and the code interpreter (${JUPYTER_PORT}) there; publish other ports on the box.`,
      ),
    );
  });
  r.use(async (err: unknown, req: Request, res: Response, _next: NextFunction) => {
    // killed or paused (its timeout, a kill) while the request ran: E2B's proxy answers 502,
    // which the SDK turns into its TimeoutError, and a dropped stream makes it ask isRunning
    const t = targets.get(req);
    const gone = t && (!(await deps.sandboxes.row(t.row.box_id)) || (await deps.sandboxes.box(t.row.box_id))?.status !== 'running');
    if (gone) err = refused(502, `The sandbox ${t.row.box_id} was killed or paused while the request was in progress (its timeout or a kill).`);
    const { status, body, headers } = renderError(req, err, deps.gate) as { status: number; body: { message: string }; headers: Record<string, string> };
    if (res.headersSent) {
      // a cell's stream that fails in a live sandbox ends with an error line the SDK reads
      if (!gone && String(res.getHeader('content-type')).includes('ndjson'))
        return void res.end(`${JSON.stringify({ type: 'error', name: 'CodeInterpreterError', value: body.message, traceback: '' })}\n`);
      return void res.destroy();
    }
    res.status(status).set(headers).json(body);
  });
  return r;
}
