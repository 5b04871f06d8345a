import http from 'node:http';
import { IdempotencyRepo } from '../db/idempotency-repo.js';

/**
 * Crash points for crash-child.ts (BOX_CRASH_AT): the service kills itself with SIGKILL
 * - `record`: right after an idempotent answer is recorded (IdempotencyRepo.settle), before it is sent;
 * - `send`: right after a 2xx answer to `POST <BOX_CRASH_PATH>` went out, before anything else runs.
 */
export function installCrashPoint(at: string | undefined, pathname = '/v1/boxes') {
  const die = () => process.kill(process.pid, 'SIGKILL');
  if (at === 'record') {
    const settle = IdempotencyRepo.prototype.settle;
    IdempotencyRepo.prototype.settle = async function (...args: Parameters<typeof settle>) {
      await settle.apply(this, args);
      die();
    };
  } else if (at === 'send') {
    const end = http.ServerResponse.prototype.end;
    http.ServerResponse.prototype.end = function (this: http.ServerResponse, ...args: unknown[]) {
      if (this.req.method === 'POST' && this.req.url === pathname && this.statusCode < 300) this.once('finish', die);
      return (end as (...a: unknown[]) => http.ServerResponse).apply(this, args);
    } as typeof end;
  }
}
