/** Resource figures of a box's VM for the metrics area: disk blocks in use, CPU and RSS of its QEMU. */
import { statSync } from 'node:fs';
import { type BoxFolder, livePid } from './box-folder.js';
import { readProcStat } from '../../kernel/util/proc-stat.js';

export function diskUsageBytes(folder: BoxFolder): number {
  try {
    return statSync(folder.disk).blocks * 512;
  } catch {
    return 0;
  }
}

export async function sampleVm(folder: BoxFolder): Promise<{ cpuSeconds: number; rssBytes: number } | undefined> {
  const pid = livePid(folder);
  const st = pid ? readProcStat(pid) : undefined;
  return st && { cpuSeconds: st.cpuSeconds, rssBytes: st.rssBytes };
}
