import { z } from 'zod';
import type { RouteRegistrar } from '../app-context.js';
import { AutoSleep, BoxIdParams, CreateBoxBody, ListBoxesQuery, SleepBody, WakeAtBody } from '../contract/boxes.js';
import { page } from '../contract/common.js';
import { boxFor, readBox } from './box-access.js';

const svc = (app: Parameters<Parameters<RouteRegistrar['add']>[0]['handler']>[0]['app']) => app.services.boxes;

export function boxRoutes(r: RouteRegistrar) {
  r.add({
    method: 'post',
    path: '/v1/boxes',
    area: 'box',
    tag: 'boxes',
    body: CreateBoxBody,
    summary: 'Create a box; answers once it is running (exec ready) or has failed',
    handler: ({ app, auth, body }) => svc(app).create(auth, body),
  });

  r.add({
    method: 'get',
    path: '/v1/boxes',
    area: 'box',
    tag: 'boxes',
    query: ListBoxesQuery,
    summary: 'List boxes (paged)',
    handler: ({ app, auth, query }) => {
      const { rows, total } = svc(app).list(auth.orgId, query);
      return page(rows, query, total);
    },
  });

  r.add({
    method: 'get',
    path: '/v1/boxes/:box_id',
    area: 'box',
    tag: 'boxes',
    params: BoxIdParams,
    summary: 'Get a box',
    handler: ({ app, auth, params }) => app.services.boxes.view(readBox(app, auth, params.box_id)),
  });

  r.add({
    method: 'post',
    path: '/v1/boxes/:box_id/pause',
    area: 'box',
    tag: 'lifecycle',
    params: BoxIdParams,
    summary: 'Pause: save memory and devices, stop the VM; wakes only on resume',
    handler: ({ app, auth, req, params }) => svc(app).pause(boxFor(app, req, auth, params.box_id, 'pause')),
  });

  r.add({
    method: 'post',
    path: '/v1/boxes/:box_id/resume',
    area: 'box',
    tag: 'lifecycle',
    params: BoxIdParams,
    summary: 'Resume a paused, sleeping or interrupted box exactly where it was',
    handler: async ({ app, auth, req, params }) => {
      const { box, resume_state } = await svc(app).resume(boxFor(app, req, auth, params.box_id, 'resume'));
      return { box_id: box.box_id, status: box.status, resume_state, box };
    },
  });

  r.add({
    method: 'post',
    path: '/v1/boxes/:box_id/sleep',
    area: 'box',
    tag: 'lifecycle',
    params: BoxIdParams,
    body: SleepBody,
    summary: 'Sleep: like pause, but wakes on exec, file calls, ingress, cron or wake_at',
    handler: ({ app, auth, req, params, body }) => svc(app).sleep(boxFor(app, req, auth, params.box_id, 'sleep'), body.wake_at),
  });

  r.add({
    method: 'post',
    path: '/v1/boxes/:box_id/wake_at',
    area: 'box',
    tag: 'lifecycle',
    params: BoxIdParams,
    body: WakeAtBody,
    summary: 'Schedule (or clear, with null) the time a sleeping box wakes',
    handler: ({ app, auth, req, params, body }) => svc(app).setWakeAt(boxFor(app, req, auth, params.box_id, 'wake_at'), body.wake_at),
  });

  r.add({
    method: 'post',
    path: '/v1/boxes/:box_id/auto_sleep',
    area: 'box',
    tag: 'lifecycle',
    params: BoxIdParams,
    body: AutoSleep,
    summary: 'Sleep automatically after min_seconds_before_sleep without exec, file calls or ingress',
    handler: ({ app, auth, req, params, body }) =>
      svc(app).setAutoSleep(boxFor(app, req, auth, params.box_id, 'auto_sleep'), {
        automatic: body.automatic,
        min_seconds_before_sleep: body.min_seconds_before_sleep ?? (body.automatic ? 300 : null),
      }),
  });

  for (const op of ['reboot', 'upgrade'] as const) {
    r.add({
      method: 'post',
      path: `/v1/boxes/:box_id/${op}`,
      area: 'box',
      tag: 'lifecycle',
      params: BoxIdParams,
      body: z.strictObject({}).optional(),
      summary: op === 'reboot' ? 'Reboot the box from its disk' : 'Restart the box with the current guest agent, same disk',
      handler: ({ app, auth, req, params }) => svc(app).reboot(boxFor(app, req, auth, params.box_id, op), op),
    });
  }

  r.add({
    method: 'post',
    path: '/v1/boxes/:box_id/terminate',
    area: 'box',
    tag: 'lifecycle',
    params: BoxIdParams,
    summary: 'Terminate: stop the VM and delete its disk (checkpoints stay)',
    handler: ({ app, auth, req, params }) => svc(app).terminate(boxFor(app, req, auth, params.box_id, 'terminate')),
  });
}
