import dns from 'node:dns';
import net from 'node:net';

/** The name inside a box for the host's loopback, reached through the proxy under the box's policy. */
export const HOST_INTERNAL = 'host.box.internal';

interface Target {
  host: string;
  port: number;
  /** True for host.box.internal (and test stand-ins): loopback is the point, not an accident. */
  internal: boolean;
}

export type TargetResolver = (host: string, port: number) => Target;

export const defaultResolver: TargetResolver = (host, port) =>
  host.toLowerCase().replace(/\.$/, '') === HOST_INTERNAL ? { host: '127.0.0.1', port, internal: true } : { host, port, internal: false };

/** Loopback and unspecified addresses: the host itself, which a box reaches only as host.box.internal. */
function isHostLocal(address: string): boolean {
  const a = address.toLowerCase().replace(/^::ffff:/, '');
  if (net.isIPv4(a)) return a.startsWith('127.') || a === '0.0.0.0';
  return a === '::1' || a === '::';
}

export class HostLocalError extends Error {
  constructor(host: string) {
    super(`${host} is this computer's own address; boxes reach the host's services as ${HOST_INTERNAL}`);
  }
}

/**
 * Socket options for connecting to a target: for anything but host.box.internal, a name
 * resolving to (or a literal that is) a loopback address is refused, so that the policy's
 * host name is the only door to the host's own services.
 */
export function connectOptions(t: Target): { host: string; port: number; lookup?: net.LookupFunction } {
  if (t.internal) return { host: t.host, port: t.port };
  if (net.isIP(t.host) && isHostLocal(t.host)) throw new HostLocalError(t.host);
  const lookup: net.LookupFunction = (hostname, options, cb) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return cb(err, '', 0);
      const list = addresses as dns.LookupAddress[];
      if (list.some((a) => isHostLocal(a.address))) return cb(new HostLocalError(hostname), '', 0);
      if (options.all) return (cb as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      cb(null, list[0]!.address, list[0]!.family);
    });
  };
  return { host: t.host, port: t.port, lookup };
}
