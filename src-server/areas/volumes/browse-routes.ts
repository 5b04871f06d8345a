import type { RouteRegistrar } from '../../platform/http/route.js';
import { sendOpenFile } from '../../platform/http/send-open-file.js';
import {
  DirectoryListing,
  DirectoryQuery,
  FILE_MODE_HEADER,
  FileReadQuery,
  FileWriteQuery,
  FileWriteResult,
  PathQuery,
  VolumeEntry,
  VolumeIdParams,
} from '@box/contract/volumes';
import { fileTooLarge, writeVolumeFile } from './file-write.js';
import { streamListing } from '../../platform/http/listing-stream.js';
import type { Volumes } from './volumes-service.js';
import { checkWriteDepth, volumeSegments } from './volume-path.js';

/** Browsing and file transfer on a volume without any box (spec: directories, paths; contract/volume-ops.ts). */
export function browseRoutes(r: RouteRegistrar, vols: Volumes) {
  r.add({
    method: 'get',
    path: '/v1/box-volumes/:volume_id/directories',
    area: 'box',
    tag: 'volumes',
    summary: "A directory's immediate entries, sorted by name",
    params: VolumeIdParams,
    query: DirectoryQuery,
    response: DirectoryListing,
    handler: async ({ auth, params, query, res }) => {
      const segs = volumeSegments(query.path);
      const batches = await (await vols.root(auth.orgId, params.volume_id)).listBatches(segs);
      await streamListing(res, batches);
      return undefined;
    },
  });

  r.add({
    method: 'get',
    path: '/v1/box-volumes/:volume_id/paths',
    area: 'box',
    tag: 'volumes',
    summary: 'What exists at a path, following symlinks',
    params: VolumeIdParams,
    query: PathQuery,
    response: VolumeEntry,
    handler: async ({ auth, params, query }) => {
      const segs = volumeSegments(query.path);
      return (await vols.root(auth.orgId, params.volume_id)).lookup(segs);
    },
  });

  r.add({
    method: 'get',
    path: '/v1/box-volumes/:volume_id/files',
    area: 'box',
    tag: 'volumes',
    summary: 'Stream one regular file out of the volume',
    params: VolumeIdParams,
    query: FileReadQuery,
    handler: async ({ auth, params, query, res }) => {
      const segs = volumeSegments(query.path);
      const { handle, stat } = await (await vols.root(auth.orgId, params.volume_id)).openRead(segs);
      res.status(200).set({
        'Content-Type': 'application/octet-stream',
        'Content-Length': String(stat.size),
        [FILE_MODE_HEADER]: String(stat.mode & 0o7777),
      });
      return sendOpenFile(res, handle, stat.size);
    },
  });

  r.add({
    method: 'put',
    path: '/v1/box-volumes/:volume_id/files',
    area: 'box',
    tag: 'volumes',
    summary: 'Stream raw bytes into one file of the volume (temp file + rename)',
    params: VolumeIdParams,
    query: FileWriteQuery,
    response: FileWriteResult,
    rawBody: true,
    handler: async ({ auth, params, query, req, res }) => {
      const segs = volumeSegments(query.path);
      checkWriteDepth(segs);
      const gone = new AbortController();
      res.on('close', () => gone.abort()); // before the answer: the client left
      const root = await vols.root(auth.orgId, params.volume_id);
      const declared = Number(req.headers['content-length'] ?? NaN);
      if (declared > vols.fileMaxBytes) throw fileTooLarge(vols.fileMaxBytes, declared);
      const size = await writeVolumeFile(root, segs, req, {
        mode: query.mode === undefined ? 0o644 : parseInt(query.mode, 8),
        createParents: query.create_parents !== 'false',
        maxBytes: vols.fileMaxBytes,
        signal: gone.signal,
      });
      return { size_bytes: size };
    },
  });
}
