/** Test support: process groups a test started (image recipe builds), checked and cleaned up. */
import { liveGroupMembers } from '../../../kernel/util/proc-stat.js';

/** A process of the group still runs (zombies, which this machine's init reaps slowly, do not count). */
export const groupAlive = (pgid: number) => liveGroupMembers(pgid).length > 0;

/** SIGKILLs each group: process.kill, never procps' kill (`kill -KILL -<pgid>` in procps-ng 4.0.2 sends kill(-1, SIGKILL)). */
export function killGroups(pgids: number[]): void {
  for (const g of pgids) {
    try {
      if (g > 1) process.kill(-g, 'SIGKILL');
    } catch {
      // gone
    }
  }
}
