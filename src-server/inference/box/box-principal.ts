import type { IncomingMessage as Request } from 'node:http';
import type { BoxLookup } from '../../boxes/ports.js';
import type { Principal } from '../../core/principal.js';
import { Unauthenticated } from '../../core/domain-errors.js';
import type { BoxCredentials } from './box-credentials.js';

const KEY_PREFIX = 'box:';
const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/;

const refused = (message: string) => new Unauthenticated(message, { code: 'invalid_api_key' });

/** The box a stored request's key id names (requests made from a box carry `box:<box_id>`). */
export const boxOfKey = (keyId: string): string | null => (keyId.startsWith(KEY_PREFIX) ? keyId.slice(KEY_PREFIX.length) : null);

/**
 * The principal "box X of organization Y" when the request carries a valid internal
 * credential from that box's egress proxy; undefined when it carries none. The route
 * pipeline consults it for inference routes only. The internal credential is only honoured on a loopback connection
 * (the proxy runs in this service); a present but wrong credential is a 401, never a
 * fallback to other auth. The principal's key is synthetic (`box:<box_id>`, scope `user`),
 * so org-scoped operations stay closed to boxes and idempotency keys are per box.
 */
export function boxPrincipalResolver(credentials: BoxCredentials, boxes: Pick<BoxLookup, 'get'>) {
  return async (req: Request): Promise<Principal | undefined> => {
    const v = credentials.verifyInternal(req.headers);
    if (v === null) return undefined;
    if (v === 'invalid') throw refused('Invalid box gateway credential.');
    if (!LOOPBACK.test(req.socket.remoteAddress ?? '')) throw refused('Box gateway credentials are only accepted from the box egress proxy.');
    const box = await boxes.get(v.boxId);
    if (!box || box.status === 'terminated') throw refused(`Box ${v.boxId} no longer exists.`);
    const now = box.created_at;
    return {
      orgId: box.org_id,
      via: 'box',
      box: { id: box.box_id },
      key: {
        id: KEY_PREFIX + box.box_id,
        org_id: box.org_id,
        name: `box ${box.name}`,
        scope: 'user',
        user_id: null,
        prefix: 'bxb_',
        created_at: now,
        last_used_at: null,
        revoked_at: null,
      },
    };
  };
}
