import type { Logger } from '../app-context.js';
import type { BoxesRepo, BoxRecord } from './boxes-repo.js';
import type { BoxRuntime, VmConfig } from './runtime-port.js';

/** Boxes looked at in parallel at start (each waits on its QEMU's monitor and its agent). */
const RECONCILE_PARALLEL = 8;

/**
 * On service start: each box's state from what is really running (issue 28, "adoption from
 * reality"). A `running` box keeps that status only when its VM runs and its agent answers
 * (BoxRuntime.adopt asks QEMU its run state); otherwise it restarts from its disk on its
 * next operation. A sleeping or interrupted box whose VM is found running (the service died
 * between a restore and recording it) is taken over as running; a VM that cannot be, is
 * ended. Every decision goes to the service log.
 */
export async function reconcileBoxes(log: Logger, repo: BoxesRepo, runtime: BoxRuntime, vmConfig: (b: BoxRecord) => VmConfig): Promise<void> {
  const boxes = repo.live();
  const t0 = Date.now();
  let adopted = 0;
  const one = async (box: BoxRecord) => {
    try {
      if (box.status === 'running' || box.status === 'sleeping' || box.status === 'interrupted_restorable') {
        const r = await runtime.adopt(vmConfig(box));
        if (r.adopted) {
          adopted++;
          if (box.status !== 'running') repo.setStatus(box.box_id, 'running', { error_message: null });
          log.info(`adopted box ${box.box_id} (${box.name}, was ${box.status}): ${r.note}`);
        } else if (box.status === 'running') {
          const message = `The VM could not be taken over at start (${r.note}); it restarts from its disk on the next operation.`;
          repo.setStatus(box.box_id, 'interrupted_restorable', { error_message: message });
          log.warn(`box ${box.box_id} (${box.name}): running -> interrupted_restorable: ${message}`);
        }
      } else if (box.status === 'creating') {
        await runtime.stop(box.box_id).catch(() => {});
        repo.setStatus(box.box_id, 'failed', { error_message: 'The service stopped while this box was being created.' });
        log.warn(`box ${box.box_id} (${box.name}): creating -> failed: the service stopped while it was being created`);
      } else if (box.status === 'terminating') {
        await runtime.destroy(box.box_id).catch(() => {});
        repo.setStatus(box.box_id, 'terminated');
        log.info(`box ${box.box_id} (${box.name}): terminating -> terminated (finished at start)`);
      }
    } catch (e) {
      log.error(`reconcile ${box.box_id}`, e);
    }
  };
  const queue = [...boxes];
  await Promise.all(
    Array.from({ length: Math.min(RECONCILE_PARALLEL, queue.length) }, async () => {
      for (let b = queue.shift(); b; b = queue.shift()) await one(b);
    }),
  );
  if (boxes.length)
    log.info(`adoption at start: ${adopted} VM${adopted === 1 ? '' : 's'} taken over, ${boxes.length} live boxes looked at in ${Date.now() - t0} ms`);
}
