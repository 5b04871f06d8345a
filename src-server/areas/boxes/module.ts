import type { AppBase } from '../../platform/app-context.js';
import type { Area } from '../../platform/area.js';
import type { AuditLog } from '../../identity/module.js';
import { openFastConnection } from '../../platform/db/fast-connection.js';
import { BoxesRepo } from './boxes-repo.js';
import { boxAccess } from './box-access.js';
import { BoxFileOps } from './box-file-ops.js';
import { boxOpsRoutes } from './box-ops-routes.js';
import { boxRoutes } from './box-routes.js';
import { BoxService, type BoxServiceDeps } from './lifecycle/box-service.js';
import type { CheckpointService } from './lifecycle/checkpoint-service.js';
import { checkpointRoutes } from './checkpoint-routes.js';
import { execRoutes } from './exec-routes.js';
import { ExecService } from './exec-service.js';
import { filesRoutes } from './files-routes.js';
import { FilesService } from './files-service.js';
import type { BoxRuntime } from './runtime-port.js';
import { BoxScheduler } from './scheduler.js';

export type { BoxService, CheckpointService, ExecService };
export { refreshGuestFiles } from './guest-refresh.js';

/**
 * Boxes, lifecycle, checkpoints, exec and files. The runtime is injected: the QEMU runtime
 * in the app, a fake one in fast route tests. Areas built later (network, cron) plug into
 * `boxes.hooks` and `boxes.guestSetup`.
 */
export async function boxesArea(app: AppBase, runtime: BoxRuntime, deps: BoxServiceDeps & { audit: Pick<AuditLog, 'record'> }) {
  const activityDb = openFastConnection(app.config.dataDir, app.db);
  const boxes = new BoxService(app, runtime, { ...deps, activity: new BoxesRepo(activityDb) });
  const access = boxAccess({ lookup: async (id) => await boxes.get(id), audit: deps.audit });
  const checkpoints = boxes.checkpoints;
  const execs = new ExecService(app, boxes);
  const maintenance = boxes.maintenance;
  const files = new FilesService(boxes, maintenance);
  /** Disk bytes used by an app's boxes (the apps routes report it). */
  const diskUsage = async (appId: string) =>
    (await boxes.live()).filter((b) => b.app_id === appId).reduce((n, b) => n + boxes.meters.diskUsageBytes(b.box_id), 0);
  deps.volumes.setMountChecker(async (orgId, volumeId) =>
    (await boxes.live())
      .filter((b) => b.org_id === orgId && b.status !== 'failed' && b.volume_mounts.some((m) => m.volume_id === volumeId))
      .map((b) => b.box_id),
  );
  let accel = 'unknown';
  void runtime.accelerator().then(
    (a) => {
      accel = a;
      const why = runtime.acceleratorReason?.();
      app.log.info(`accelerator: ${a}${why ? ` (${why})` : ''}`);
    },
    (e: unknown) => app.log.warn(`accelerator: not known (${e instanceof Error ? e.message : String(e)})`),
  );
  app.statusProviders.push(() => ({ runtime: runtime.name, accelerator: accel }));
  const scheduler = new BoxScheduler(app, boxes, execs, checkpoints);
  /** The adoptions of VMs found at start, running in the background (reconcile.ts). */
  let adopting: Promise<void> = Promise.resolve();
  const area: Area = {
    name: 'boxes',
    routes(r) {
      boxRoutes(r, { boxes, access });
      checkpointRoutes(r, { checkpoints, access });
      execRoutes(r, { execs, access });
      filesRoutes(r, { files, access });
      boxOpsRoutes(r, { restore: checkpoints.restorer, fileOps: new BoxFileOps(boxes), access });
    },
    async start() {
      await execs.recover();
      ({ adopting } = await boxes.reconcile());
      scheduler.start();
    },
    async stop() {
      scheduler.stop();
      await adopting;
      await maintenance.stopAll();
      await runtime.close();
      await execs.close();
      if (activityDb !== app.db) await activityDb.close();
    },
  };
  return { boxes, checkpoints, execs, files, diskUsage, access, area };
}
export type { BoxRuntime } from './runtime-port.js';
export { PreparationTracker } from './preparation.js';
export { showPreparation } from './preparation.js';
export { BoxesRepo } from './boxes-repo.js';
export type { FilesService } from './files-service.js';
