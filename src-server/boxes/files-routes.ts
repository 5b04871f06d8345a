import { pipeline } from 'node:stream/promises';
import type { RouteRegistrar } from '../app-context.js';
import { BoxIdParams } from '../contract/boxes.js';
import { GetFileQuery, ListDirQuery, PutFileQuery } from '../contract/files.js';
import { ApiError, badRequest, conflict, notFound } from '../http/errors.js';
import { boxFor } from './box-access.js';

/** Maps a guest agent error code onto the spec's statuses. */
function guestError(e: unknown, path: string): never {
  const code = (e as { code?: string }).code;
  const msg = (e as Error).message;
  switch (code) {
    case 'not_found': throw notFound(`No such file or directory in the box: ${path}`, 'not_found', 'path');
    case 'is_directory': throw conflict(`${path} is a directory.`, 'failed_precondition', 'path');
    case 'not_directory': throw conflict(`A component of ${path} is not a directory.`, 'failed_precondition', 'path');
    case 'exists': throw conflict(`${path} already exists.`, 'already_exists', 'path');
    case 'permission_denied': throw new ApiError(403, 'permission_error', `The box refused access to ${path}.`, { param: 'path' });
    case 'invalid': throw badRequest(`Invalid path ${path}: ${msg}`, 'path');
    case 'disconnected':
    case 'timeout': throw new ApiError(503, 'server_error', `The box's agent did not answer: ${msg}`, { headers: { 'Retry-After': '1' } });
    default: throw e;
  }
}

export function filesRoutes(r: RouteRegistrar) {
  r.add({
    method: 'put', path: '/v1/boxes/:box_id/files', area: 'box', tag: 'files', params: BoxIdParams, query: PutFileQuery, rawBody: true,
    summary: 'Stream raw bytes into one regular file (a complete retry safely replaces it)',
    handler: async ({ app, auth, req, params, query }) => {
      const box = await app.services.boxes.ensureRunning(boxFor(app, req, auth, params.box_id, 'files'), 'files');
      const agent = await app.services.boxes.runtime.agent(box.box_id);
      try {
        const { sizeBytes } = await agent.writeFile(query.path, { mode: query.mode, createParents: query.create_parents }, req);
        return { size_bytes: sizeBytes };
      } catch (e) {
        guestError(e, query.path);
      }
    },
  });

  r.add({
    method: 'get', path: '/v1/boxes/:box_id/files', area: 'box', tag: 'files', params: BoxIdParams, query: GetFileQuery,
    summary: 'Stream one regular file out of the box (X-Box-File-Mode carries its mode)',
    handler: async ({ app, auth, req, res, params, query }) => {
      const box = await app.services.boxes.ensureRunning(boxFor(app, req, auth, params.box_id, 'files'), 'files');
      const agent = await app.services.boxes.runtime.agent(box.box_id);
      let file;
      try {
        file = await agent.readFile(query.path);
      } catch (e) {
        guestError(e, query.path);
      }
      res.status(200).set({ 'Content-Type': 'application/octet-stream', 'X-Box-File-Mode': String(file.mode) });
      if (file.size !== null) res.set('Content-Length', String(file.size));
      await pipeline(file.stream, res).catch((e) => {
        app.log.warn(`file download ${query.path} from ${box.box_id} ended early: ${(e as Error).message}`);
        res.destroy();
      });
    },
  });

  r.add({
    method: 'get', path: '/v1/boxes/:box_id/directories', area: 'box', tag: 'files', params: BoxIdParams, query: ListDirQuery,
    summary: "List a directory inside the box (volume-entry shape, sorted by name)",
    handler: async ({ app, auth, req, params, query }) => {
      const box = await app.services.boxes.ensureRunning(boxFor(app, req, auth, params.box_id, 'files'), 'files');
      const agent = await app.services.boxes.runtime.agent(box.box_id);
      try {
        const entries = await agent.listDir(query.path);
        return { entries: [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)) };
      } catch (e) {
        guestError(e, query.path);
      }
    },
  });
}
