import type { AreaModule } from '../app-context.js';
import { boxRoutes } from './box-routes.js';
import { BoxService } from './box-service.js';
import { checkpointRoutes } from './checkpoint-routes.js';
import { CheckpointService } from './checkpoint-service.js';
import { execRoutes } from './exec-routes.js';
import { ExecService } from './exec-service.js';
import { filesRoutes } from './files-routes.js';
import type { PreparationTracker } from './preparation.js';
import type { BoxRuntime } from './runtime-port.js';
import { BoxScheduler } from './scheduler.js';

declare module '../app-context.js' {
  interface Services {
    boxes: BoxService;
    checkpoints: CheckpointService;
    execs: ExecService;
    /** Published ports (networking area): host forwards for a box's VM. */
    listeners: { forwardsFor(boxId: string): { hostPort: number; guestPort: number }[]; onBoxStarted?(boxId: string): void; onBoxGone?(boxId: string): void };
    /** The egress proxy: the host port a box's VM reaches the outside through. */
    egress: { proxyPortFor(boxId: string): number | undefined };
  }
}

/**
 * Boxes, lifecycle, checkpoints, exec and files. The runtime is injected: the QEMU runtime
 * in the app, a fake one in fast route tests. `preparation` (when given) is fed by the
 * runtime's image progress and shown as `preparation` in `GET /v1/status`.
 */
export function boxesModule(makeRuntime: (dataDir: string) => BoxRuntime, preparation?: PreparationTracker): AreaModule {
  let scheduler: BoxScheduler | undefined;
  return {
    name: 'boxes',
    install(app, r) {
      const runtime = makeRuntime(app.config.dataDir);
      const boxes = new BoxService(app, runtime);
      app.services.boxes = boxes;
      app.services.checkpoints = new CheckpointService(app, boxes);
      app.services.execs = new ExecService(app, boxes);
      app.services.diskUsage = (appId) =>
        boxes.repo.live().filter((b) => b.app_id === appId).reduce((n, b) => n + runtime.diskUsageBytes(b.box_id), 0);
      app.services.volumes?.setMountChecker((orgId, volumeId) =>
        boxes.repo.live().filter((b) => b.org_id === orgId && b.status !== 'failed' && b.volume_mounts.some((m) => m.volume_id === volumeId)).map((b) => b.box_id),
      );
      let accel = 'unknown';
      void runtime.accelerator().then((a) => (accel = a)).catch((e: unknown) => preparation?.failed('image', e));
      app.statusProviders.push(() => ({ runtime: runtime.name, accelerator: accel, ...(preparation ? { preparation: preparation.snapshot() } : {}) }));
      scheduler = new BoxScheduler(app, boxes);
      boxRoutes(r);
      checkpointRoutes(r);
      execRoutes(r);
      filesRoutes(r);
    },
    async start(app) {
      await app.services.boxes!.reconcile();
      scheduler!.start();
    },
    async stop(app) {
      scheduler?.stop();
      await app.services.boxes?.runtime.close();
    },
  };
}
