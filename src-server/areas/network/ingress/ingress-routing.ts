import type { BoxLookup, BoxRecord } from '../../boxes/ports.js';
import { INGRESS_SUFFIX, type ListenerService } from '../listeners/listener-service.js';
import type { ListenerRow } from '../listeners/listeners-repo.js';

/**
 * `e2b`: reached by an E2B getHost address (the sandbox may want its traffic access token);
 * `sandboxGone`: an E2B address of a sandbox that is not there (answered as E2B's proxy does:
 * 502, JSON); other misses are 404 pages.
 */
type Route = Routed | { box: BoxRecord; publish: number } | Missed;
/** A request's box and listener. */
export type Routed = { box: BoxRecord; listener: ListenerRow; e2b?: true };
/** Nothing to forward to: why, and for E2B's getHost of a sandbox that is gone, its id. */
export type Missed = { miss: string; sandboxGone?: string };

/** E2B's `getHost(port)`: `<port>-<sandboxID>.<domain>`, the domain being `box.localhost:<ingress port>`. */
const E2B_HOST = /^(\d{1,5})-(box_[0-9a-f-]{36})$/;

/**
 * Which box and published port a Host header names:
 * `<box-name>.box.localhost` → the box's first http listener;
 * `<guest-port>.<box-name>.box.localhost` → that http listener;
 * a custom domain → the listener it names, or the box's first http listener;
 * `<guest-port>-<box-id>.box.localhost` (E2B's `getHost(port)`, any port as in E2B) → that
 * port's listener, or `publish` when it has none yet (the ingress publishes it as http).
 */
export async function routeHost(boxes: BoxLookup, listeners: ListenerService, hostHeader: string | undefined): Promise<Route> {
  const host = (hostHeader ?? '').toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');
  let box: BoxRecord | undefined;
  let guestPort: number | undefined;
  if (host.endsWith(INGRESS_SUFFIX)) {
    const labels = host.slice(0, -INGRESS_SUFFIX.length).split('.');
    const e2b = labels.length === 1 ? E2B_HOST.exec(labels[0]!) : null;
    if (e2b) {
      const port = Number(e2b[1]);
      const sandbox = await boxes.get(e2b[2]!);
      // E2B's proxy answers 502 for a sandbox that is not there (killed, or never was)
      if (!sandbox || sandbox.status === 'terminated') return { miss: `No sandbox ${e2b[2]}.`, sandboxGone: e2b[2]! };
      if (port < 1 || port > 65535) return { miss: `${port} is not a port.` };
      const l = await listeners.repo.get(sandbox.box_id, port);
      if (l && l.protocol !== 'http') return { miss: `Port ${port} of sandbox ${sandbox.box_id} is published as tcp.` };
      return l ? { box: sandbox, listener: l, e2b: true } : { box: sandbox, publish: port };
    }
    let name = labels[0];
    if (labels.length === 2 && /^\d{1,5}$/.test(labels[0]!)) [guestPort, name] = [Number(labels[0]), labels[1]];
    else if (labels.length !== 1) return { miss: `${host} is not a box address (use <box-name>${INGRESS_SUFFIX} or <port>.<box-name>${INGRESS_SUFFIX}).` };
    box = (await boxes.live()).find((b) => b.name === name);
    if (!box) return { miss: `No box named ${name}.` };
  } else {
    const d = await listeners.repo.domain(host);
    if (!d) return { miss: `No box serves ${host || '(no Host header)'}.` };
    box = await boxes.get(d.box_id);
    guestPort = d.guest_port ?? undefined;
    if (!box || box.status === 'terminated') return { miss: `No box serves ${host}.` };
  }
  const listener = guestPort === undefined ? await listeners.primaryHttp(box.box_id) : await listeners.repo.get(box.box_id, guestPort);
  if (!listener || listener.protocol !== 'http') {
    return { miss: `Box ${box.name} has no published http port${guestPort === undefined ? '' : ` ${guestPort}`}.` };
  }
  return { box, listener };
}
