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
    handler: async ({ auth, req, params }) => ({ data: await s.listeners.list(await access.boxFor(req, auth, params.box_id, 'read')) }),
  });

  r.add({
    method: 'post',
    path: '/v1/boxes/:box_id/listeners',
    area: 'box',
    tag: 'networking',
    params: BoxIdParams,
    body: CreateListenerBody,
    summary: 'Publish a guest port: http through the ingress at <box-name>.box.localhost, or tcp on its own loopback port',
    handler: async ({ auth, req, params, body }) => await s.listeners.create(await access.boxFor(req, auth, params.box_id, 'listeners'), body),
  });

  r.add({
    method: 'delete',
    path: '/v1/boxes/:box_id/listeners/:guest_port',
    area: 'box',
    tag: 'networking',
    params: ListenerParams,
    summary: 'Unpublish a guest port',
    handler: async ({ auth, req, params }) => s.listeners.remove(await access.boxFor(req, auth, params.box_id, 'listeners'), params.guest_port),
  });

  r.add({
    method: 'get',
    path: '/v1/boxes/:box_id/domains',
    area: 'box',
    tag: 'networking',
    params: BoxIdParams,
    summary: 'Custom domains the ingress routes to this box',
    handler: async ({ auth, req, params }) => ({ data: await s.domains.list(await access.boxFor(req, auth, params.box_id, 'read')) }),
  });

  r.add({
    method: 'post',
    path: '/v1/boxes/:box_id/domains',
    area: 'box',
    tag: 'networking',
    params: BoxIdParams,
    body: CreateDomainBody,
    summary: "Route an extra host name (e.g. myapp.localhost) to one of the box's http listeners",
    handler: async ({ auth, req, params, body }) => await s.domains.add(await access.boxFor(req, auth, params.box_id, 'domains'), body),
  });

  r.add({
    method: 'delete',
    path: '/v1/boxes/:box_id/domains/:domain',
    area: 'box',
    tag: 'networking',
    params: DomainParams,
    summary: 'Remove a custom domain',
    handler: async ({ auth, req, params }) => await s.domains.remove(await access.boxFor(req, auth, params.box_id, 'domains'), params.domain),
  });

  r.add({
    method: 'delete',
    path: '/v1/boxes/:box_id/domains',
    area: 'box',
    tag: 'networking',
    params: BoxIdParams,
    body: DeleteDomainBody,
    summary: 'Remove a custom domain named in the body ({domain})',
    handler: async ({ auth, req, params, body }) => await s.domains.remove(await access.boxFor(req, auth, params.box_id, 'domains'), body.domain),
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
    handler: async ({ auth, req, res, params, query }) => {
      await access.boxFor(req, auth, params.box_id, 'read');
      const filter = { verdict: query.verdict, host: query.host };
      if (query.stream === '1') return void s.egressLog.stream(res, params.box_id, query.limit, filter);
      const { rows, total } = await s.egressLog.page(params.box_id, query.limit, query.offset, filter);
      return page(rows, query, total);
    },
  });
}
