import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import crypto from 'node:crypto';
import type { AppBase } from '../app-context.js';
import { ApiError } from '../http/api-errors.js';
import { renderError, setErrorStyle } from '../http/error-handler.js';
import { admit } from '../http/route.js';
import type { EnvdFilesHttp } from './envd/files-http.js';
import { defaultUser, type Target } from './envd/target.js';
import type { SandboxService } from './sandbox-service.js';

const refused = (status: 401 | 502, message: string) => new ApiError(status, status === 401 ? 'authentication_error' : 'server_error', message);

/** envd's URL signature (the SDK's getSignature): v1_ + base64 SHA-256 of path:operation:user:token[:expiration]. */
function signature(path: string, operation: string, user: string, token: string, expiration: string | undefined): string {
  const raw = expiration ? `${path}:${operation}:${user}:${token}:${expiration}` : `${path}:${operation}:${user}:${token}`;
  return `v1_${crypto.createHash('sha256').update(raw).digest('base64').replace(/=+$/, '')}`;
}

const same = (a: string, b: string) => a.length === b.length && crypto.timingSafeEqual(Buffer.from(a), Buffer.from(b));

/**
 * The SDK's signed file URLs (`uploadUrl`, `downloadUrl`). With E2B_SANDBOX_URL set it
 * builds them as `/files?path=…&signature=…` on the server's root, without the sandbox id:
 * the sandbox is the one whose access token made the signature (checked against each
 * sandbox's token, constant-time), and an expired signature is refused. Admitted as every
 * request of the sandbox's organization (billing, the concurrency limit: `admit`).
 */
export function e2bSignedFilesRoutes(deps: {
  gate: Pick<AppBase, 'billing' | 'limiter' | 'log'>;
  sandboxes: SandboxService;
  filesHttp: EnvdFilesHttp;
}): Router {
  const r = express.Router();
  const target = async (req: Request, res: Response, operation: 'read' | 'write'): Promise<Target> => {
    const q = req.query as Record<string, string | undefined>;
    // envd's words and order: the signature is checked before its expiration (a forger learns nothing of it)
    if (!q.signature) throw refused(401, 'missing signature query parameter');
    if (q.signature_expiration !== undefined && !/^-?\d+$/.test(q.signature_expiration)) throw refused(401, 'invalid signature_expiration');
    const row = (await deps.sandboxes.rows()).find((s) =>
      same(signature(q.path ?? '', operation, q.username ?? '', s.access_token, q.signature_expiration), q.signature!),
    );
    if (!row) throw refused(401, 'invalid signature');
    if (q.signature_expiration !== undefined && Number(q.signature_expiration) * 1000 < Date.now()) throw refused(401, 'signature is already expired');
    const box = await deps.sandboxes.box(row.box_id);
    if (!box || box.status !== 'running') throw refused(502, `The sandbox ${row.box_id} is not running.`);
    await admit(deps.gate, row.org_id, res, { stream: false });
    return { row, box, user: q.username || defaultUser(box) };
  };
  const run = (op: 'read' | 'write', h: (t: Target, req: Request, res: Response) => Promise<unknown>) => (req: Request, res: Response, next: NextFunction) => {
    setErrorStyle(req, 'e2b');
    Promise.resolve()
      .then(async () => h(await target(req, res, op), req, res))
      .then((out) => {
        if (!res.headersSent && out !== undefined) res.json(out);
      })
      .catch(next);
  };
  r.get(
    '/',
    run('read', (t, req, res) => deps.filesHttp.download(t, req, res)),
  );
  r.post(
    '/',
    run('write', (t, req) => deps.filesHttp.upload(t, req)),
  );
  r.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (res.headersSent) return void res.destroy();
    const { status, body, headers } = renderError(req, err, deps.gate);
    res.status(status).set(headers).json(body);
  });
  return r;
}
