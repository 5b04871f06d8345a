/**
 * Health of running boxes: a periodic agent ping (a box whose agent misses
 * HEALTH_FAILURES in a row is lost), and what the serial console says after a crash.
 */
import { readFileSync } from 'node:fs';
import type { AgentClient } from '../../../platform/guest/agent-client.js';
import { type BoxFolder, isAlive } from '../box-folder.js';

const HEALTH_EVERY_MS = 15_000;
export const HEALTH_FAILURES = 3;

export class HealthWatch {
  private timers = new Map<string, NodeJS.Timeout>();

  /** Pings the agent; calls onDead once after HEALTH_FAILURES failures unless ignore() says so. */
  watch(boxId: string, client: AgentClient, ignore: () => boolean, onDead: () => void) {
    this.clear(boxId);
    let failures = 0;
    const t = setInterval(() => {
      client.ping().then(
        () => (failures = 0),
        () => {
          if (++failures < HEALTH_FAILURES || ignore()) return;
          clearInterval(t);
          onDead();
        },
      );
    }, HEALTH_EVERY_MS);
    t.unref();
    this.timers.set(boxId, t);
  }

  clear(boxId: string) {
    clearInterval(this.timers.get(boxId));
    this.timers.delete(boxId);
  }
}

/** The last serial-console lines when the guest kernel panicked, else ''. */
export function panicNote(folder: BoxFolder): string {
  try {
    const log = readFileSync(folder.serialLog, 'utf8').slice(-8192);
    const at = log.lastIndexOf('Kernel panic');
    return at < 0 ? '' : `: ${log.slice(at).split('\n')[0]!.trim()}`;
  } catch {
    return '';
  }
}

/** Why a box's agent connection ended without being asked to (checked shortly after it closed). */
export function lossOf(folder: BoxFolder): { kind: 'killed' | 'panic' | 'agent_lost'; message: string } {
  const panic = panicNote(folder);
  if (isAlive(folder)) return { kind: 'agent_lost', message: 'The connection to the guest agent dropped while the VM kept running.' };
  if (panic) return { kind: 'panic', message: `The guest kernel panicked${panic}` };
  return { kind: 'killed', message: 'The VM process exited unexpectedly (killed?); the box restarts from its disk on the next operation.' };
}
