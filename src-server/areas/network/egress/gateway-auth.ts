import type http from 'node:http';
import { INTERNAL_HEADERS, type BoxCredentials } from '../../inference/ports.js';
import { HOST_INTERNAL } from './upstream.js';

/**
 * The proxy half of in-box inference (issue 10): a request from a box to the local gateway
 * (host.box.internal on the gateway's port) must carry THIS box's token (`Authorization:
 * Bearer` or `x-api-key`); the token and any internal header the box sent are stripped and
 * the proxy's own proof (`internalAuthFor`) is added. The token is worthless elsewhere: the
 * gateway never accepts it as an API key.
 */
export interface GatewayAuth {
  isGateway(host: string, port: number): boolean;
  /** The gateway's port on host.box.internal (what `"gateway"` in a policy entry's `ports` means). */
  port(): number | undefined;
  /** Rewrites `headers` in place for the gateway; false when the box's token is missing or wrong. */
  authorize(boxId: string, headers: http.OutgoingHttpHeaders): boolean;
}

export function gatewayAuth(creds: BoxCredentials, gatewayPort: () => number | undefined): GatewayAuth {
  return {
    isGateway: (host, port) => host === HOST_INTERNAL && port === gatewayPort(),
    port: gatewayPort,
    authorize(boxId, headers) {
      const bearer = /^Bearer\s+(\S+)$/i.exec(String(headers.authorization ?? ''))?.[1];
      const token = bearer ?? (typeof headers['x-api-key'] === 'string' ? headers['x-api-key'] : undefined);
      for (const h of [...INTERNAL_HEADERS, 'authorization', 'x-api-key']) delete headers[h];
      if (!token || !creds.verifyToken(boxId, token)) return false;
      Object.assign(headers, creds.internalAuthFor(boxId));
      // The service refuses non-loopback Host names (DNS-rebinding guard): name it as the host does.
      headers.host = `127.0.0.1:${gatewayPort()}`;
      return true;
    },
  };
}
