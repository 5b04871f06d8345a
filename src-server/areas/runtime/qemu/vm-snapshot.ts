/**
 * Save/restore and checkpoints. Guest RAM lives in `ram` (memory-backend-file,
 * share=on); with the x-ignore-shared capability a migration writes only device state
 * (devices.bin, tens of KiB), and a restore maps the same RAM file again.
 * A template clone maps the template's RAM file share=off instead: QEMU sends its whole
 * RAM, and box-ramdelta (agent-build.ts) keeps only the pages that differ from the
 * template, so devices.bin holds what the box changed (a few MiB, not the ~80 MiB the
 * template's memory holds) and a restore leaves every other page mapped from the
 * template file, still shared with the other clones.
 * Invariant: devices.bin matches `ram` only while no VM runs on them; restoreVm deletes
 * it once the VM runs again, so a stale pair can never be restored.
 * Checkpoints (of a saved folder, of a running VM, in place) are in checkpoints.ts.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { BoxFolder, type BoxState, type SaveMethod, hasSavedState, readState, writeState } from '../box-folder.js';
import type { AgentClient } from '../../../platform/guest/agent-client.js';
import { unmountShares } from './shares.js';
import { shellQuote } from '../../../kernel/util/shell-quote.js';
import { ensureRamDelta } from '../guest-image/agent-build.js';
import { type VmHandle, quitVm, startQemu } from './vm.js';
import type { VmConfig } from './vm-config.js';
import { boxEnv } from '../../../platform/settings.js';

const execFileP = promisify(execFile);

async function setIgnoreShared(handle: VmHandle): Promise<void> {
  await handle.qmp.execute('migrate-set-capabilities', {
    capabilities: [{ capability: 'x-ignore-shared', state: true }],
  });
}

async function waitMigration(handle: VmHandle, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const info = await handle.qmp.execute<{ status?: string; 'error-desc'?: string }>('query-migrate');
    if (info.status === 'completed') return;
    if (info.status === 'failed' || info.status === 'cancelled') {
      throw new Error(`migration ${info.status}: ${info['error-desc'] ?? ''}`);
    }
    if (Date.now() > deadline) throw new Error(`migration did not finish in ${timeoutMs} ms (${info.status})`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

/**
 * Stops the guest and writes its device state to `path` (RAM stays in the ram file).
 * On failure the guest runs again and no partial file is left.
 */
async function saveDevices(handle: VmHandle, path: string): Promise<SaveMethod> {
  await handle.qmp.execute('stop');
  return migrateStopped(handle, path);
}

/** saveDevices of a VM already stopped; on failure it runs again. */
export async function migrateStopped(handle: VmHandle, path: string): Promise<SaveMethod> {
  const tmp = `${path}.tmp`;
  const template = handle.config.ramFile;
  const filter = template ? await ensureRamDelta() : undefined;
  if (filter && template && (await composeSaved(handle, filter, template, tmp))) {
    await rename(tmp, path);
    return 'compose';
  }
  try {
    await setIgnoreShared(handle);
    await handle.qmp.execute('migrate-set-parameters', { 'max-bandwidth': 8 * 1024 ** 3 });
    const sink = filter && template ? `${shellQuote(filter)} filter ${shellQuote(template)} mem ${shellQuote(tmp)}` : `cat > ${shellQuote(tmp)}`;
    await handle.qmp.execute('migrate', { uri: `exec:${sink}` });
    await waitMigration(handle, 60_000);
    // the filter renames its output into place once it has written the whole stream
    if (filter) await waitForFile(tmp, 30_000);
    await rename(tmp, path);
    return 'migration';
  } catch (e) {
    await rm(tmp, { force: true });
    await rm(`${tmp}.part`, { force: true });
    await handle.qmp.execute('cont').catch(() => {});
    throw e;
  }
}

/**
 * The fast save of a stopped template clone: QEMU writes its device state alone
 * (xen-save-devices-state: no RAM, tens of KiB) and box-ramdelta compose reads the pages
 * the box wrote straight from QEMU's memory, so nothing walks the other ~500 MiB of the
 * mapping (a migration reads all of it and sends every non-zero page through a pipe:
 * 120-140 ms per save, and the first save of a clone faults in every template page).
 * The result is the same stream the migration + filter path writes (box-ramdelta's
 * header). False when this process may not read QEMU's memory (ptrace rules, e.g. Yama
 * scope 1 for a QEMU the service did not start) or the template's stream is gone: the
 * caller migrates instead.
 */
async function composeSaved(handle: VmHandle, filter: string, template: string, tmp: string): Promise<boolean> {
  if (boxEnv().saveCompose === false) return false;
  const templateStream = join(dirname(template), 'devices.bin');
  if (!existsSync(templateStream)) return false;
  const devices = `${tmp}.devices`;
  try {
    await handle.qmp.execute('xen-save-devices-state', { filename: devices, live: false });
    await execFileP(filter, ['compose', template, 'mem', templateStream, devices, String(handle.pid), tmp]);
    return true;
  } catch {
    await rm(tmp, { force: true });
    return false;
  } finally {
    await rm(devices, { force: true });
  }
}

/** Waits for box-ramdelta's rename of `${path}.part` to `path`; it removes the part file when it fails. */
async function waitForFile(path: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(path)) {
    if (!existsSync(`${path}.part`) && !existsSync(path)) throw new Error(`box-ramdelta did not write the saved state ${path}`);
    if (Date.now() > deadline) throw new Error(`the saved state did not appear at ${path}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

interface SaveResult {
  ms: number;
}

export interface SnapshotOptions {
  /** Connected agent: needed when the VM has shared folders (unmounted before saving). */
  agent?: AgentClient;
  /** checkpointVm: the checkpoint is complete (before the VM is restored). */
  onSaved?: () => void;
}

export async function prepareShares(handle: VmHandle, opts: SnapshotOptions): Promise<void> {
  if (!handle.config.mounts?.length) return;
  if (!opts.agent) throw new Error('a VM with shared folders needs its agent to save (to unmount them)');
  await unmountShares(opts.agent, handle.config);
}

/**
 * Pause/sleep: device state to devices.bin, then QEMU quits. The folder is restorable
 * after. waitForAgent(..., {afterRestore}) mounts the shared folders again.
 */
export async function saveAndStop(handle: VmHandle, opts: SnapshotOptions = {}): Promise<SaveResult> {
  await prepareShares(handle, opts);
  const t0 = performance.now();
  const savedWith = await saveDevices(handle, handle.folder.devices);
  await quitVm(handle);
  const state = await readState(handle.folder);
  if (state) await writeState(handle.folder, { ...state, savedAt: new Date().toISOString(), savedWith, restoreStartedAt: undefined });
  return { ms: performance.now() - t0 };
}

/** Whether the saved state in `folder` may have run before: a restore of it began and no save followed. */
export async function restoreRanBefore(folder: BoxFolder): Promise<boolean> {
  return !!(await readState(folder))?.restoreStartedAt;
}

/**
 * Settings a restore or clone may change: user-net options (published ports, the proxy),
 * not guest devices, so the saved device state still fits; and the hostname a later cold
 * boot passes to the kernel (a fork's own; a restored guest gets it through the agent).
 */
export type NetworkOverrides = Partial<Pick<VmConfig, 'ports' | 'proxyPort' | 'hostname'>>;

/**
 * Starts QEMU with -incoming defer on the saved ram + devices.bin, using the machine
 * shape from state.json, and resolves once the guest runs again. With `spares`, a QEMU
 * already started for the box's template takes the load when one fits (restore-spares.ts).
 */
/** QEMUs started ahead for restores (restore-spares.ts RestoreSpares is one). */
interface SpareSource {
  take(folder: BoxFolder, state: BoxState): Promise<{ handle: VmHandle; launchDir: string; portFile: string } | undefined>;
}

export async function restoreVm(folder: BoxFolder, network: NetworkOverrides = {}, spares?: SpareSource): Promise<VmHandle> {
  const saved = await readState(folder);
  if (!saved || !hasSavedState(folder)) throw new Error(`nothing to restore in ${folder.dir}`);
  const state: BoxState = { ...saved, config: { ...saved.config, ...network } };
  const spare = await spares?.take(folder, state);
  const handle = spare?.handle ?? (await startQemu(folder, state.config, { incoming: true }));
  // a spare's command line names its own folder; its port file carries the proxy port
  if (spare && saved.portFile && saved.portFile !== spare.portFile) await rm(saved.portFile, { force: true });
  const placed: Partial<BoxState> = spare ? { launchDir: spare.launchDir, portFile: spare.portFile } : { launchDir: undefined };
  const restoreStartedAt = new Date().toISOString();
  await writeState(folder, { ...state, ...placed, restoreStartedAt });
  try {
    await setIgnoreShared(handle);
    await handle.qmp.execute('migrate-incoming', { uri: `exec:cat ${shellQuote(folder.devices)}` });
    const deadline = Date.now() + 30_000;
    for (;;) {
      const { status } = await handle.qmp.execute<{ status: string }>('query-status');
      if (status === 'running') break;
      if (status === 'paused' || status === 'postmigrate') {
        await handle.qmp.execute('cont');
        continue;
      }
      if (status !== 'inmigrate' && status !== 'restore-vm') throw new Error(`restore ended in state ${status}`);
      if (Date.now() > deadline) throw new Error('restore timed out');
      await new Promise((r) => setTimeout(r, 2));
    }
  } catch (e) {
    await quitVm(handle).catch(() => {});
    throw e;
  }
  await rm(folder.devices, { force: true });
  await writeState(folder, { ...state, ...placed, restoreStartedAt, restoredAt: new Date().toISOString() });
  return handle;
}
