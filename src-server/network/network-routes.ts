import type { RouteRegistrar } from '../http/route.js';
import type { BoxAccess } from '../boxes/ports.js';
import { BoxIdParams } from '../contract/boxes.js';
import { page } from '../contract/common.js';
import { CreateDomainBody, CreateListenerBody, DeleteDomainBody, DomainParams, EgressLogQuery, ListenerParams } from '../contract/network.js';
import type { EgressLogService } from './egress-log-service.js';
import type { DomainService } from './listeners/domain-service.js';
import type { ListenerService } from './listeners/listener-service.js';

/** Published ports, custom domains and the egress log. Publishing and domains stay with a private box's creator (no override). */
export function networkRoutes(r: RouteRegistrar, s: { listeners: ListenerService; domains: DomainService; egressLog: EgressLogService; access: BoxAccess }) {
  const { access } = s;
  r.add({
    method: 'get',
    path: '/v1/boxes/:box_id/listeners',
    area: 'box',
    tag: 'networking',
    params: BoxIdParams,
    summary: "The box's published ports and where each is reachable",
    handler: ({ auth, req, params }) => ({ data: s.listeners.list(access.boxFor(req, auth, params.box_id, 'read')) }),
  });

  r.add({
    method: 'post',
    path: '/v1/boxes/:box_id/listeners',
    area: 'box',
    tag: 'networking',
    params: BoxIdParams,
    body: CreateListenerBody,
    summary: 'Publish a guest port: http through the ingress at <box-name>.box.localhost, or tcp on its own loopback port',
    handler: ({ auth, req, params, body }) => s.listeners.create(access.boxFor(req, auth, params.box_id, 'listeners'), body),
  });

  r.add({
    method: 'delete',
    path: '/v1/boxes/:box_id/listeners/:guest_port',
    area: 'box',
    tag: 'networking',
    params: ListenerParams,
    summary: 'Unpublish a guest port',
    handler: ({ auth, req, params }) => s.listeners.remove(access.boxFor(req, auth, params.box_id, 'listeners'), params.guest_port),
  });

  r.add({
    method: 'get',
    path: '/v1/boxes/:box_id/domains',
    area: 'box',
    tag: 'networking',
    params: BoxIdParams,
    summary: 'Custom domains the ingress routes to this box',
    handler: ({ auth, req, params }) => ({ data: s.domains.list(access.boxFor(req, auth, params.box_id, 'read')) }),
  });

  r.add({
    method: 'post',
    path: '/v1/boxes/:box_id/domains',
    area: 'box',
    tag: 'networking',
    params: BoxIdParams,
    body: CreateDomainBody,
    summary: "Route an extra host name (e.g. myapp.localhost) to one of the box's http listeners",
    handler: ({ auth, req, params, body }) => s.domains.add(access.boxFor(req, auth, params.box_id, 'domains'), body),
  });

  r.add({
    method: 'delete',
    path: '/v1/boxes/:box_id/domains/:domain',
    area: 'box',
    tag: 'networking',
    params: DomainParams,
    summary: 'Remove a custom domain',
    handler: ({ auth, req, params }) => s.domains.remove(access.boxFor(req, auth, params.box_id, 'domains'), params.domain),
  });

  r.add({
    method: 'delete',
    path: '/v1/boxes/:box_id/domains',
    area: 'box',
    tag: 'networking',
    params: BoxIdParams,
    body: DeleteDomainBody,
    summary: 'Remove a custom domain named in the body ({domain})',
    handler: ({ auth, req, params, body }) => s.domains.remove(access.boxFor(req, auth, params.box_id, 'domains'), body.domain),
  });

  r.add({
    method: 'get',
    path: '/v1/boxes/:box_id/egress-log',
    area: 'box',
    tag: 'networking',
    params: BoxIdParams,
    query: EgressLogQuery,
    summary:
      'What the box tried to reach through the egress proxy (each https request too, when intercepted), and the verdict; newest first; ?stream=1 for server-sent events',
    handler: ({ auth, req, res, params, query }) => {
      access.boxFor(req, auth, params.box_id, 'read');
      const filter = { verdict: query.verdict, host: query.host };
      if (query.stream === '1') return void s.egressLog.stream(res, params.box_id, query.limit, filter);
      const { rows, total } = s.egressLog.page(params.box_id, query.limit, query.offset, filter);
      return page(rows, query, total);
    },
  });
}
