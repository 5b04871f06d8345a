import type { Logger } from '../app-context.js';
import type { BoxesRepo, BoxRecord } from './boxes-repo.js';
import type { BoxRuntime, VmConfig } from './runtime-port.js';

/** Boxes looked at in parallel at start (each waits on its QEMU's monitor and its agent). */
const RECONCILE_PARALLEL = 8;

/** error_message of a box whose VM is being taken over at start (until its agent answers). */
export const ADOPTING_MESSAGE = 'The service restarted: its VM is being taken over (waiting for its guest agent).';

/**
 * On service start: each box's state from what is really running (issue 28, "adoption from
 * reality"). A `running` box keeps that status only when its VM runs and its agent answers
 * (BoxRuntime.adopt asks QEMU its run state); otherwise it restarts from its disk on its
 * next operation. A sleeping or interrupted box whose VM is found running (the service died
 * between a restore and recording it) is taken over as running; a VM that cannot be, is
 * ended. Every decision goes to the service log.
 *
 * The start does not wait for the VMs (with 40 running boxes that took 25 s): before this
 * returns, every `running` box is marked `interrupted_restorable` (ADOPTING_MESSAGE) and
 * every live box's lock is taken; the adoptions then run in the background, RECONCILE_PARALLEL
 * at a time, each turning its box `running` again once its agent answered. An operation on a
 * box waits for the box's lock, so it never sees a VM that is half taken over. `adopting`
 * resolves when all of them are done.
 */
export async function reconcileBoxes(
  log: Logger,
  repo: BoxesRepo,
  runtime: BoxRuntime,
  vmConfig: (b: BoxRecord) => Promise<VmConfig>,
  withLock: (boxId: string, fn: () => Promise<void>) => Promise<void>,
): Promise<{ adopting: Promise<void> }> {
  const boxes = await repo.live();
  const t0 = Date.now();
  let adopted = 0;
  for (const box of boxes) if (box.status === 'running') await repo.setStatus(box.box_id, 'interrupted_restorable', { error_message: ADOPTING_MESSAGE });
  const one = async (box: BoxRecord) => {
    try {
      if (box.status === 'running' || box.status === 'sleeping' || box.status === 'interrupted_restorable') {
        const r = await runtime.adopt(await vmConfig(box));
        if (r.adopted) {
          adopted++;
          await repo.setStatus(box.box_id, 'running', { error_message: null });
          log.info(`adopted box ${box.box_id} (${box.name}, was ${box.status}): ${r.note}`);
        } else if (box.status === 'running') {
          const message = `The VM could not be taken over at start (${r.note}); it restarts from its disk on the next operation.`;
          await repo.update(box.box_id, { error_message: message });
          log.warn(`box ${box.box_id} (${box.name}): running -> interrupted_restorable: ${message}`);
        }
      } else if (box.status === 'creating') {
        await runtime.stop(box.box_id).catch(() => {});
        await repo.setStatus(box.box_id, 'failed', { error_message: 'The service stopped while this box was being created.' });
        log.warn(`box ${box.box_id} (${box.name}): creating -> failed: the service stopped while it was being created`);
      } else if (box.status === 'failed') {
        // a maintenance VM (maintenance.ts) a killed service left behind
        if (await runtime.isAlive(box.box_id)) {
          await runtime.stop(box.box_id).catch(() => {});
          log.info(`box ${box.box_id} (${box.name}): failed, its leftover maintenance VM ended`);
        }
      } else if (box.status === 'terminating') {
        await runtime.destroy(box.box_id).catch(() => {});
        await repo.setStatus(box.box_id, 'terminated');
        log.info(`box ${box.box_id} (${box.name}): terminating -> terminated (finished at start)`);
      }
    } catch (e) {
      log.error(`reconcile ${box.box_id}`, e);
    }
  };
  // every lock taken now (KeyedLock.run queues synchronously), the work RECONCILE_PARALLEL at a time
  let free = RECONCILE_PARALLEL;
  const waiting: (() => void)[] = [];
  const slot = () => (free > 0 ? (free--, Promise.resolve()) : new Promise<void>((r) => waiting.push(r)));
  const release = () => (waiting.length ? waiting.shift()!() : free++);
  const all = boxes.map((box) =>
    withLock(box.box_id, async () => {
      await slot();
      try {
        await one(box);
      } finally {
        release();
      }
    }),
  );
  const adopting = Promise.all(all).then(() => {
    if (boxes.length)
      log.info(`adoption at start: ${adopted} VM${adopted === 1 ? '' : 's'} taken over, ${boxes.length} live boxes looked at in ${Date.now() - t0} ms`);
  });
  return { adopting };
}
