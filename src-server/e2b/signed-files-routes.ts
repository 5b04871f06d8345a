import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import crypto from 'node:crypto';
import type { EnvdFilesHttp } from './envd/files-http.js';
import type { Target } from './envd/target.js';
import type { SandboxService } from './sandbox-service.js';
import { e2bError } from './wire-errors.js';

class Refused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

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
 * sandbox's token, constant-time), and an expired signature is refused.
 */
export function e2bSignedFilesRoutes(deps: { sandboxes: SandboxService; filesHttp: EnvdFilesHttp; log: (...a: unknown[]) => void }): Router {
  const r = express.Router();
  const target = (req: Request, operation: 'read' | 'write'): Target => {
    const q = req.query as Record<string, string | undefined>;
    if (!q.signature) throw new Refused(401, "A signed URL needs its signature (from the SDK's uploadUrl or downloadUrl).");
    if (q.signature_expiration && Number(q.signature_expiration) * 1000 < Date.now()) throw new Refused(401, 'This signed URL has expired.');
    const row = deps.sandboxes
      .rows()
      .find((s) => same(signature(q.path ?? '', operation, q.username ?? '', s.access_token, q.signature_expiration), q.signature!));
    if (!row) throw new Refused(401, `The signature does not match this ${operation} URL of any sandbox.`);
    const box = deps.sandboxes.box(row.box_id);
    if (!box || box.status !== 'running') throw new Refused(502, `The sandbox ${row.box_id} is not running.`);
    return { row, box, user: q.username || undefined };
  };
  const run = (op: 'read' | 'write', h: (t: Target, req: Request, res: Response) => Promise<unknown>) => (req: Request, res: Response, next: NextFunction) => {
    Promise.resolve()
      .then(() => h(target(req, op), req, res))
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
  r.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const { status, body } = e2bError(err, deps.log);
    if (res.headersSent) return void res.destroy();
    res.status(status).json(body);
  });
  return r;
}
