/** The one reader of /proc/<pid>/stat (fields after the command name, see proc(5)). */
import { readFileSync } from 'node:fs';

interface ProcStat {
  /** R, S, D, Z... */
  state: string;
  cpuSeconds: number;
  rssBytes: number;
}

const CLK_TCK = 100;
const PAGE = 4096;

/** undefined when the process does not exist. */
export function readProcStat(pid: number): ProcStat | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // the command name may hold spaces and parentheses: fields start after the last ')'
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state: f[0]!, cpuSeconds: (Number(f[11]) + Number(f[12])) / CLK_TCK, rssBytes: Number(f[21]) * PAGE };
}
