/**
 * Cross-process exclusive lock: a file created with O_EXCL holding the owner's pid. A
 * lock whose owner is dead is stale and taken over.
 */
import { open, readFile, rm } from 'node:fs/promises';

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function withFileLock<T>(lockPath: string, fn: () => Promise<T>, opts: { timeoutMs?: number; onWait?: () => void } = {}): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 30 * 60_000);
  let waited = false;
  for (;;) {
    try {
      const fh = await open(lockPath, 'wx');
      await fh.writeFile(String(process.pid));
      await fh.close();
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const owner = Number((await readFile(lockPath, 'utf8').catch(() => '')).trim());
      if (owner > 0 && !pidAlive(owner)) {
        await rm(lockPath, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for lock ${lockPath}`, { cause: e });
      if (!waited) opts.onWait?.();
      waited = true;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    return await fn();
  } finally {
    await rm(lockPath, { force: true });
  }
}
