// Loaded into each judge test worker (vitest setupFiles; not E2B's code): names under
// `.localhost` resolve to the loopback address, as RFC 6761 has it and as systemd-resolved,
// browsers and curl do. Box's ingress answers E2B's getHost(port) at
// `<port>-<sandboxID>.box.localhost:<ingress port>`; Node's resolver asks glibc, which on a
// machine without nss-myhostname does not know those names. Only the resolver changes.
import dns from 'node:dns';

const lookup = dns.lookup;
dns.lookup = function (hostname, options, callback) {
  const cb = typeof options === 'function' ? options : callback;
  const opts = typeof options === 'function' || options === undefined ? {} : typeof options === 'number' ? { family: options } : options;
  if (typeof hostname === 'string' && /(^|\.)localhost\.?$/i.test(hostname) && opts.family !== 6) {
    return void process.nextTick(() => (opts.all ? cb(null, [{ address: '127.0.0.1', family: 4 }]) : cb(null, '127.0.0.1', 4)));
  }
  return lookup.call(dns, hostname, options, callback);
};
