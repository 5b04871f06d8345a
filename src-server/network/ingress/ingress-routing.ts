import type { BoxLookup, BoxRecord } from '../../boxes/ports.js';
import { INGRESS_SUFFIX, type ListenerService } from '../listeners/listener-service.js';
import type { ListenerRow } from '../listeners/listeners-repo.js';

type Route = { box: BoxRecord; listener: ListenerRow } | { miss: string };

/**
 * Which box and published port a Host header names:
 * `<box-name>.box.localhost` → the box's first http listener;
 * `<guest-port>.<box-name>.box.localhost` → that http listener;
 * a custom domain → the listener it names, or the box's first http listener.
 */
export async function routeHost(boxes: BoxLookup, listeners: ListenerService, hostHeader: string | undefined): Promise<Route> {
  const host = (hostHeader ?? '').toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');
  let box: BoxRecord | undefined;
  let guestPort: number | undefined;
  if (host.endsWith(INGRESS_SUFFIX)) {
    const labels = host.slice(0, -INGRESS_SUFFIX.length).split('.');
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
