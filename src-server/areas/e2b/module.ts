import type { Express } from 'express';
import path from 'node:path';
import type { AppBase } from '../../platform/app-context.js';
import type { Area } from '../../platform/area.js';
import { e2bApiRoutes } from './api-routes.js';
import { EnvdFilesHttp } from './envd/files-http.js';
import { EnvdFilesystem } from './envd/filesystem.js';
import { EnvdProcesses } from './envd/processes.js';
import { e2bFeatureRoutes } from './feature-routes.js';
import type {
  AppsPort,
  BoxesPort,
  CheckpointsPort,
  CodePort,
  ExecPort,
  FilesPort,
  ForkPort,
  ImageBuildPort,
  MetricsPort,
  PoliciesPort,
  SecretsPort,
  VolumesPort,
} from './ports.js';
import { e2bRestRoutes } from './rest-routes.js';
import { E2BSecrets } from './secrets.js';
import { E2BVolumes } from './volumes.js';
import { e2bVolumeContentRoutes } from './volume-content-routes.js';
import { e2bTemplateFilesRoute, e2bTemplateRoutes } from './template-routes.js';
import { TemplateBuilds } from './templates-build.js';
import { SandboxService } from './sandbox-service.js';
import { e2bSandboxRoutes } from './sandbox-routes.js';
import { SandboxesRepo } from './sandboxes-repo.js';
import { e2bSignedFilesRoutes } from './signed-files-routes.js';
import { SnapshotService } from './snapshot-service.js';

const SWEEP_MS = 1000;

/**
 * E2B compatibility (issue 27): E2B's REST API at /e2b/api and envd plus the code
 * interpreter at /e2b/sandbox, in E2B's wire formats, so the stock SDKs run unchanged with
 * E2B_API_URL, E2B_SANDBOX_URL and a Box API key. The REST API's routes are Box routes
 * (`routes`: contract/e2b.ts, the one pipeline, errors in E2B's `{code, message}`); the
 * sandbox URL and the SDK's signed file URLs are mounted by the area itself (`mount`),
 * behind the same local guard as every route.
 */
export function e2bArea(
  app: AppBase,
  deps: {
    boxes: BoxesPort;
    checkpoints: CheckpointsPort & ForkPort;
    execs: ExecPort;
    files: FilesPort;
    apps: AppsPort;
    code: CodePort;
    policies: PoliciesPort;
    metrics: MetricsPort;
    images: ImageBuildPort;
    secrets: SecretsPort;
    volumes: VolumesPort;
    /** `box.localhost:<ingress port>`: where a sandbox's ports answer (E2B's `getHost`). */
    domain: () => string | null;
  },
) {
  const repo = new SandboxesRepo(app.db);
  const { boxes, checkpoints, apps, policies, files } = deps;
  const templates = new TemplateBuilds(app.db, deps.images, path.join(app.config.dataDir, 'e2b-templates'));
  const resolveTemplate = (orgId: string, t: string) => templates.tags.resolve(orgId, t);
  const sandboxes = new SandboxService(repo, { boxes, checkpoints, apps, policies, files, log: app.log, resolveTemplate });
  const snapshots = new SnapshotService(sandboxes, deps.checkpoints);
  const secrets = new E2BSecrets(app.db, deps.secrets);
  const volumes = new E2BVolumes(app.db, deps.volumes);
  const processes = new EnvdProcesses(deps.execs, async (id) => (await deps.boxes.get(id))?.status === 'running');
  const filesystem = new EnvdFilesystem(deps.execs);
  const filesHttp = new EnvdFilesHttp(deps.files);
  let timer: NodeJS.Timeout | undefined;
  let sweeping = false;
  const area: Area = {
    name: 'e2b',
    routes(r) {
      e2bFeatureRoutes(r, { sandboxes, metrics: deps.metrics });
      e2bTemplateRoutes(r, templates);
      e2bRestRoutes(r, { secrets, volumes });
      e2bVolumeContentRoutes(r, volumes);
      e2bApiRoutes(r, { sandboxes, snapshots, volumes, templates, domain: deps.domain });
    },
    mount(express: Express) {
      express.use('/e2b/template-files', e2bTemplateFilesRoute(templates));
      express.use('/files', e2bSignedFilesRoutes({ gate: app, sandboxes, filesHttp }));
      express.use('/e2b/sandbox', e2bSandboxRoutes({ gate: app, sandboxes, processes, filesystem, filesHttp, code: deps.code }));
    },
    async start() {
      await templates.recover();
      timer = setInterval(() => {
        if (sweeping) return;
        sweeping = true;
        void sandboxes.sweep().finally(() => (sweeping = false));
      }, SWEEP_MS);
      timer.unref();
    },
    stop() {
      clearInterval(timer);
    },
  };
  return { sandboxes, area };
}
