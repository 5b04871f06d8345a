import { z } from 'zod';
import type { RouteRegistrar } from '../http/route.js';
import { AutoSleep, BoxIdParams, CreateBoxBody, ListBoxesQuery, SleepBody, WakeAtBody } from '../contract/boxes.js';
import { page } from '../contract/common.js';
import type { BoxAccess } from './box-access.js';
import type { BoxService } from './lifecycle/box-service.js';

export function boxRoutes(r: RouteRegistrar, s: { boxes: BoxService; access: BoxAccess }) {
  const { access } = s;
  r.add({
    method: 'post',
    path: '/v1/boxes',
    area: 'box',
    tag: 'boxes',
    body: CreateBoxBody,
    summary: 'Create a box; answers once it is running (exec ready) or has failed',
    // a box whose VM did not start is answered as it is, failed with the reason (the spec)
    handler: async ({ auth, body }) => (await s.boxes.create(auth, body)).box,
  });

  r.add({
    method: 'get',
    path: '/v1/boxes',
    area: 'box',
    tag: 'boxes',
    query: ListBoxesQuery,
    summary: 'List boxes (paged)',
    handler: async ({ auth, query }) => {
      const { rows, total } = await s.boxes.list(auth.orgId, query);
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
    handler: async ({ auth, params }) => await s.boxes.view(await access.readBox(auth, params.box_id)),
  });

  r.add({
    method: 'post',
    path: '/v1/boxes/:box_id/pause',
    area: 'box',
    tag: 'lifecycle',
    params: BoxIdParams,
    summary: 'Pause: save memory and devices, stop the VM; wakes only on resume',
    handler: async ({ auth, req, params }) => s.boxes.pause(await access.boxFor(req, auth, params.box_id, 'pause')),
  });

  r.add({
    method: 'post',
    path: '/v1/boxes/:box_id/resume',
    area: 'box',
    tag: 'lifecycle',
    params: BoxIdParams,
    summary: 'Resume a paused, sleeping or interrupted box exactly where it was',
    handler: async ({ auth, req, params }) => {
      const { box, resume_state } = await s.boxes.resume(await access.boxFor(req, auth, params.box_id, 'resume'));
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
    handler: async ({ auth, req, params, body }) => s.boxes.sleep(await access.boxFor(req, auth, params.box_id, 'sleep'), body.wake_at),
  });

  r.add({
    method: 'post',
    path: '/v1/boxes/:box_id/wake_at',
    area: 'box',
    tag: 'lifecycle',
    params: BoxIdParams,
    body: WakeAtBody,
    summary: 'Schedule (or clear, with null) the time a sleeping box wakes',
    handler: async ({ auth, req, params, body }) => await s.boxes.setWakeAt(await access.boxFor(req, auth, params.box_id, 'wake_at'), body.wake_at),
  });

  r.add({
    method: 'post',
    path: '/v1/boxes/:box_id/auto_sleep',
    area: 'box',
    tag: 'lifecycle',
    params: BoxIdParams,
    body: AutoSleep,
    summary: 'Sleep automatically after min_seconds_before_sleep without exec, file calls or ingress',
    handler: async ({ auth, req, params, body }) =>
      await s.boxes.setAutoSleep(await access.boxFor(req, auth, params.box_id, 'auto_sleep'), {
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
      handler: async ({ auth, req, params }) => s.boxes.reboot(await access.boxFor(req, auth, params.box_id, op), op),
    });
  }

  r.add({
    method: 'post',
    path: '/v1/boxes/:box_id/terminate',
    area: 'box',
    tag: 'lifecycle',
    params: BoxIdParams,
    summary: 'Terminate: stop the VM and delete its disk (checkpoints stay)',
    handler: async ({ auth, req, params }) => s.boxes.terminate(await access.boxFor(req, auth, params.box_id, 'terminate')),
  });
}
