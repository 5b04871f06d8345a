import type { Request } from 'express';
import { E2BVolumeCreateQuery, E2BVolumeDirQuery, E2BVolumeMetadataBody, E2BVolumeParams, E2BVolumePathQuery } from '@box/contract/e2b-rest';
import { sendOpenFile } from '../../platform/http/send-open-file.js';
import { Reply, type Method, type RouteRegistrar, type RouteSpec } from '../../platform/http/route.js';
import { volumeSegments } from '../volumes/ports.js';
import type { E2BVolumes } from './volumes.js';

const PREFIX = '/e2b/api/volumecontent/:volumeID';

/**
 * E2B's volume content API (E2B's spec/openapi-volumecontent.yml; the `Volume` instance methods
 * of the `e2b` SDK: list, makeDir, getInfo, exists, updateMetadata, readFile, writeFile, remove)
 * on a Box volume's files, without a sandbox. Authorized by the volume's token, not an API key
 * (E2BVolumes.content). Paths are relative to the volume's root; a ".." segment is refused
 * (400 naming `path`), and symlinks are followed only inside the volume (volumes/safe-fs.ts).
 * The SDK reaches it at E2B_VOLUME_API_URL (or `apiUrl` in its options): Box's `/e2b/api`.
 */
export function e2bVolumeContentRoutes(r: RouteRegistrar, volumes: E2BVolumes): void {
  type Params = { volumeID: string };
  const on = <B, Q>(
    method: Method,
    path: string,
    summary: string,
    spec: Omit<RouteSpec<B, Q, Params>, 'method' | 'path' | 'area' | 'tag' | 'summary' | 'params'>,
  ) =>
    r.add<B, Q, Params>({ method, path: `${PREFIX}${path}`, area: 'box', tag: 'e2b', summary, errors: 'e2b', auth: 'none', params: E2BVolumeParams, ...spec });
  const files = (req: Request, volumeId: string) => volumes.content(volumeId, req.headers.authorization);
  const attrs = (q: { uid?: number; gid?: number; mode?: number }) => ({ uid: q.uid, gid: q.gid, mode: q.mode });

  on('get', '/dir', "E2B: a volume directory's entries, `depth` levels down (the volume's token)", {
    query: E2BVolumeDirQuery,
    handler: async ({ req, params: p, query: q }) => (await files(req, p.volumeID)).list(volumeSegments(q.path), q.depth),
  });
  on('post', '/dir', 'E2B: make a directory in a volume (`force`: with its parents)', {
    query: E2BVolumeCreateQuery,
    handler: async ({ req, params: p, query: q }) =>
      new Reply(201, await (await files(req, p.volumeID)).makeDir(volumeSegments(q.path), attrs(q), q.force === 'true')),
  });
  on('get', '/path', 'E2B: what a volume path holds (a symlink as a symlink)', {
    query: E2BVolumePathQuery,
    handler: async ({ req, params: p, query: q }) => (await files(req, p.volumeID)).stat(volumeSegments(q.path)),
  });
  on('patch', '/path', "E2B: change a volume path's mode or owner", {
    query: E2BVolumePathQuery,
    body: E2BVolumeMetadataBody,
    handler: async ({ req, params: p, query: q, body }) => (await files(req, p.volumeID)).update(volumeSegments(q.path), attrs(body)),
  });
  on('delete', '/path', 'E2B: delete a volume path (a directory with its contents)', {
    query: E2BVolumePathQuery,
    handler: async ({ req, params: p, query: q }) => (await (await files(req, p.volumeID)).remove(volumeSegments(q.path)), new Reply(204, null)),
  });
  on('get', '/file', 'E2B: stream a file out of a volume', {
    query: E2BVolumePathQuery,
    handler: async ({ req, res, params: p, query: q }) => {
      const { handle, stat } = await (await files(req, p.volumeID)).readFile(volumeSegments(q.path));
      res.status(200).set({ 'Content-Type': 'application/octet-stream', 'Content-Length': String(stat.size) });
      return sendOpenFile(res, handle, stat.size);
    },
  });
  on('put', '/file', 'E2B: stream a file into a volume (`force`: replace one, make missing parents)', {
    query: E2BVolumeCreateQuery,
    rawBody: true,
    handler: async ({ req, res, params: p, query: q }) => {
      const content = await files(req, p.volumeID);
      const gone = new AbortController();
      res.on('close', () => gone.abort()); // before the answer: the client left
      return new Reply(201, await content.writeFile(volumeSegments(q.path), req, attrs(q), q.force === 'true', gone.signal));
    },
  });
}
