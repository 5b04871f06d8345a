import type { RouteRegistrar } from '../http/route.js';
import type { BoxAccess } from '../boxes/ports.js';
import { BoxIdParams } from '../contract/boxes.js';
import { ConsoleQuery, ConsoleTail, LOG_LEVELS, ServiceLogPage, ServiceLogQuery, type ServiceLogEntry } from '../contract/service-admin.js';
import type { ConsoleService } from './console-service.js';
import type { ServiceLog } from './service-log.js';
import { openEventStream } from './sse.js';

/**
 * `GET /v1/service/log` (organization key: the log may name any box or key of the org)
 * and `GET /v1/boxes/{id}/console`, each with a `?stream=1` server-sent form that
 * follows live.
 */
export function logRoutes(r: RouteRegistrar, deps: { log: ServiceLog; console: ConsoleService; access: BoxAccess }) {
  const { access } = deps;
  r.add({
    method: 'get',
    path: '/v1/service/log',
    area: 'box',
    tag: 'service',
    query: ServiceLogQuery,
    response: ServiceLogPage,
    summary: "The service's own log of this run (newest `limit`, oldest first), at `level` or above; ?stream=1 follows it as server-sent `entry` events",
    handler: ({ res, query }) => {
      const q = { level: query.level, limit: query.limit, after: query.after, search: query.search };
      const page = deps.log.read(q);
      if (query.stream !== '1') return { data: page.data, last_seq: page.lastSeq, dropped: page.dropped, file: deps.log.file } satisfies ServiceLogPage;
      const min = LOG_LEVELS.indexOf(query.level ?? 'info');
      const needle = query.search?.toLowerCase();
      const onEntry = (e: ServiceLogEntry) => {
        if (LOG_LEVELS.indexOf(e.level) >= min && (!needle || e.message.toLowerCase().includes(needle))) stream.send('entry', e, e.seq);
      };
      const stream = openEventStream(res, () => deps.log.events.off('entry', onEntry));
      for (const e of page.data) stream.send('entry', e, e.seq);
      deps.log.events.on('entry', onEntry);
      return undefined;
    },
  });

  r.add({
    method: 'get',
    path: '/v1/boxes/:box_id/console',
    area: 'box',
    tag: 'boxes',
    params: BoxIdParams,
    query: ConsoleQuery,
    response: ConsoleTail,
    summary: "A box's serial console log: the last `bytes` (then `lines`); ?stream=1 sends that tail as a `chunk` event, then each new piece as it is written",
    handler: async ({ auth, res, params, query }) => {
      const box = await access.readBox(auth, params.box_id);
      const tail = deps.console.tail(box.box_id, { bytes: query.bytes, lines: query.lines });
      if (query.stream !== '1') return tail;
      let stop = () => {};
      const stream = openEventStream(res, () => stop());
      stream.send('chunk', { offset: tail.offset, data: tail.data, truncated: tail.truncated });
      stop = deps.console.follow(
        box.box_id,
        tail.size_bytes,
        (c) => stream.send('chunk', c),
        () => stream.send('reset', {}),
      );
      return undefined;
    },
  });
}
