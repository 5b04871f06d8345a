import { pipeline } from 'node:stream/promises';
import type { RouteRegistrar } from '../http/route.js';
import { streamListing } from '../http/listing-stream.js';
import { BoxIdParams } from '../contract/boxes.js';
import { GetFileQuery, ListDirQuery, PutFileQuery } from '../contract/files.js';
import type { BoxAccess } from './box-access.js';
import type { FilesService } from './files-service.js';

export function filesRoutes(r: RouteRegistrar, s: { files: FilesService; access: BoxAccess }) {
  const { access } = s;
  r.add({
    method: 'put',
    path: '/v1/boxes/:box_id/files',
    area: 'box',
    tag: 'files',
    params: BoxIdParams,
    query: PutFileQuery,
    rawBody: true,
    summary: 'Stream raw bytes into one regular file (a complete retry safely replaces it)',
    handler: async ({ auth, req, params, query }) => {
      const box = await access.boxFor(req, auth, params.box_id, 'files');
      const { sizeBytes } = await s.files.write(box, query.path, { mode: query.mode, createParents: query.create_parents }, req);
      return { size_bytes: sizeBytes };
    },
  });

  r.add({
    method: 'get',
    path: '/v1/boxes/:box_id/files',
    area: 'box',
    tag: 'files',
    params: BoxIdParams,
    query: GetFileQuery,
    summary: 'Stream one regular file out of the box (X-Box-File-Mode carries its mode)',
    handler: async ({ app, auth, req, res, params, query }) => {
      const box = await access.boxFor(req, auth, params.box_id, 'files');
      const file = await s.files.read(box, query.path);
      res.status(200).set({ 'Content-Type': 'application/octet-stream', 'X-Box-File-Mode': String(file.mode) });
      if (file.size !== null) res.set('Content-Length', String(file.size));
      await pipeline(file.stream, res).catch((e) => {
        app.log.warn(`file download ${query.path} from ${box.box_id} ended early: ${(e as Error).message}`);
        res.destroy();
      });
    },
  });

  r.add({
    method: 'get',
    path: '/v1/boxes/:box_id/directories',
    area: 'box',
    tag: 'files',
    params: BoxIdParams,
    query: ListDirQuery,
    summary: 'List a directory inside the box (volume-entry shape, sorted by name)',
    handler: async ({ auth, req, res, params, query }) => {
      const box = await access.boxFor(req, auth, params.box_id, 'files');
      await streamListing(res, await s.files.list(box, query.path));
      return undefined;
    },
  });
}
