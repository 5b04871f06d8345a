import type { RouteRegistrar } from '../../http/route.js';
import { AddLocalModelBody, DownloadParams, LocalModelParams, type LocalModel } from '../../contract/inference.js';
import { notFound } from '../../http/api-errors.js';
import { Reply } from '../../http/route.js';
import type { ModelDownloads } from '../engines/local/downloads.js';
import type { LlamaEngine } from '../engines/local/llama-engine.js';
import type { ModelFile } from '../engines/local/model-files.js';

/** Models of the embedded engine: add from a path (201) or a URL (202, a download job). */
export function localModelsRoutes(r: RouteRegistrar, local: LlamaEngine, downloads: ModelDownloads) {
  const view = (f: ModelFile): LocalModel => ({
    id: `local/${f.name}`,
    name: f.name,
    file: f.file,
    size_bytes: f.sizeBytes,
    loaded: local.isLoaded(f.name),
    created_at: new Date(f.createdAt).toISOString(),
  });
  r.add({
    method: 'get',
    path: '/v1/engines/local/models',
    area: 'common',
    tag: 'engines',
    summary: 'GGUF models of the embedded engine',
    handler: () => ({ data: local.files.list().map(view) }),
  });
  r.add({
    method: 'post',
    path: '/v1/engines/local/models',
    area: 'common',
    tag: 'engines',
    summary: 'Add a GGUF model: {path} links or copies a file; {url} starts a download job',
    body: AddLocalModelBody,
    handler: async ({ body }) => {
      if ('url' in body) return new Reply(202, await downloads.begin(body.url, body.name));
      return new Reply(201, view(await local.files.addFromPath(body.path, body.name)));
    },
  });
  r.add({
    method: 'delete',
    path: '/v1/engines/local/models/:model',
    area: 'common',
    tag: 'engines',
    summary: 'Remove a local model file',
    params: LocalModelParams,
    handler: ({ params }) => {
      const f = local.files.describe(params.model);
      local.files.remove(params.model);
      return view(f!);
    },
  });
  r.add({
    method: 'get',
    path: '/v1/engines/local/downloads',
    area: 'common',
    tag: 'engines',
    summary: 'Recent model downloads',
    handler: async () => ({ data: await downloads.list() }),
  });
  r.add({
    method: 'get',
    path: '/v1/engines/local/downloads/:download_id',
    area: 'common',
    tag: 'engines',
    summary: 'A model download job and its progress',
    params: DownloadParams,
    handler: async ({ params }) => {
      const job = await downloads.get(params.download_id);
      if (!job) throw notFound(`No download with id ${params.download_id}.`, null, 'download_id');
      return job;
    },
  });
}
