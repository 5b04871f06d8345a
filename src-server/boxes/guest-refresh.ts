import type { AppBase } from '../app-context.js';
import type { BoxService } from './lifecycle/box-service.js';
import { writeGuestFiles } from './guest-setup.js';

/**
 * Writes the guest setup files again into every running box, for when what they hold
 * changed while boxes run (the egress CA rotated, or a replaced CA's grace period ended).
 * Each box is updated under its lock, so no pause or sleep races the write; start hooks do
 * not run again. Boxes that are not running get the files at their next start or wake
 * (BoxService.boot writes them every time).
 */
export async function refreshGuestFiles(
  boxes: Pick<BoxService, 'live' | 'get' | 'withLock' | 'agent' | 'guestSetup'>,
  log: AppBase['log'],
): Promise<{ updated: string[]; failed: string[] }> {
  const out = { updated: [] as string[], failed: [] as string[] };
  const running = (await boxes.live()).filter((b) => b.status === 'running');
  await Promise.all(
    running.map((b) =>
      boxes.withLock(b.box_id, async () => {
        const cur = await boxes.get(b.box_id);
        if (cur?.status !== 'running') return;
        try {
          await writeGuestFiles(await boxes.agent(cur.box_id), boxes.guestSetup.files(cur));
          out.updated.push(cur.box_id);
        } catch (e) {
          log.error(`box ${cur.box_id}: rewriting guest setup files failed`, e);
          out.failed.push(cur.box_id);
        }
      }),
    ),
  );
  return out;
}
