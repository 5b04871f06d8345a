import { loadOrCreateKeyFile } from '../../../kernel/util/key-file.js';
import { createHmac, timingSafeEqual } from 'node:crypto';
import path from 'node:path';
import type { IncomingHttpHeaders } from 'node:http';

/**
 * Credentials for inference from inside a box (issue 10). Two halves:
 *
 * - Egress proxy (src-server/areas/network): puts `tokenFor(box.id)` into the box as
 *   `OPENAI_API_KEY` / `ANTHROPIC_API_KEY`. On a request from that box to the gateway it
 *   checks the presented key (`Authorization: Bearer` or `x-api-key`) with
 *   `verifyToken(box.id, key)`, STRIPS every header named in `INTERNAL_HEADERS` (and the
 *   box's Authorization / x-api-key), then adds `internalAuthFor(box.id)` and forwards to
 *   the gateway over loopback.
 * - Gateway (this area): `verifyInternal(headers)` turns those headers into the principal
 *   "box X of org Y" for the inference routes only, and only for loopback connections.
 *
 * Properties: the box token is never an API key (the gateway does not accept it as a bearer:
 * used directly from the host or another box it answers 401); a box cannot forge the
 * internal header because it never learns the secret and the proxy strips it; nothing of
 * the organization's keys enters a box. Both values are HMAC-SHA256 of the box id under one
 * 32-byte secret in `<dataDir>/box-gateway.key` (0600, made on first use, exclusive create),
 * so they are stable across restarts and any process holding the data dir agrees on them.
 */
export interface BoxCredentials {
  /** The key a box sees (`bxb_...`); same value for the life of the box. */
  tokenFor(boxId: string): string;
  /** True only when `token` is exactly `tokenFor(boxId)` (constant-time). */
  verifyToken(boxId: string, token: string): boolean;
  /** Headers the proxy adds when forwarding a box's request to the gateway. */
  internalAuthFor(boxId: string): Record<string, string>;
  /** Gateway side: the box id named by valid internal headers; null when absent; throws never. */
  verifyInternal(headers: IncomingHttpHeaders): { boxId: string } | 'invalid' | null;
}

/** Header carrying the HMAC that proves the request came through a box's egress proxy. */
export const BOX_GATEWAY_AUTH_HEADER = 'x-box-gateway-auth';
/** Header naming the box on whose behalf the proxy forwards. */
export const BOX_ID_HEADER = 'x-box-id';
/** Every header the proxy must strip from a box's request before adding its own. */
// ts-unused-exports:disable-next-line
export const INTERNAL_HEADERS = [BOX_GATEWAY_AUTH_HEADER, BOX_ID_HEADER] as const;

const BOX_GATEWAY_KEY_FILE = 'box-gateway.key';
const TOKEN_PREFIX = 'bxb_';

function loadSecret(dataDir: string): Buffer {
  return loadOrCreateKeyFile(path.join(dataDir, BOX_GATEWAY_KEY_FILE));
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export class HmacBoxCredentials implements BoxCredentials {
  private cache = new Map<string, { token: string; internal: string }>();

  constructor(private secret: Buffer) {}

  static forDataDir(dataDir: string): HmacBoxCredentials {
    return new HmacBoxCredentials(loadSecret(dataDir));
  }

  private mac(purpose: string, boxId: string): string {
    return createHmac('sha256', this.secret).update(`${purpose}\0${boxId}`).digest('base64url');
  }

  private values(boxId: string) {
    let v = this.cache.get(boxId);
    if (!v) {
      v = { token: TOKEN_PREFIX + this.mac('box-token', boxId), internal: this.mac('gateway-internal', boxId) };
      if (this.cache.size > 10_000) this.cache.clear();
      this.cache.set(boxId, v);
    }
    return v;
  }

  tokenFor(boxId: string): string {
    return this.values(boxId).token;
  }

  verifyToken(boxId: string, token: string): boolean {
    return same(token, this.tokenFor(boxId));
  }

  internalAuthFor(boxId: string): Record<string, string> {
    return { [BOX_GATEWAY_AUTH_HEADER]: this.values(boxId).internal, [BOX_ID_HEADER]: boxId };
  }

  verifyInternal(headers: IncomingHttpHeaders): { boxId: string } | 'invalid' | null {
    const mac = headers[BOX_GATEWAY_AUTH_HEADER];
    const boxId = headers[BOX_ID_HEADER];
    if (mac === undefined && boxId === undefined) return null;
    if (typeof mac !== 'string' || typeof boxId !== 'string' || boxId.length > 200) return 'invalid';
    return same(mac, this.values(boxId).internal) ? { boxId } : 'invalid';
  }
}
