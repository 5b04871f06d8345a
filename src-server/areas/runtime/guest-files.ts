/**
 * The guest-setup files of a box (egress CA bundle, SDK variables...: the box domain's
 * GuestSetup) written through the agent on every create, restore and fork, with what was
 * written remembered in the box folder's state.json (`guestFiles`: path → sha256).
 * A restore brings back the guest exactly as it was saved, disk included, so a file whose
 * content has not changed since it was last written is not written again: under TCG each
 * write into a freshly restored VM costs 20-100 ms of translation and ext4 work (the CA
 * bundle alone is ~220 KB), which a resume and a fork paid every time. A changed file (a
 * rotated CA) is written and remembered. A cold boot starts from the disk alone (writes
 * may have been lost with the VM), so launchVm forgets the record.
 */
import { createHash } from 'node:crypto';
import type { GuestFile } from '../boxes/ports.js';
import type { AgentClient } from '../../platform/guest/agent-client.js';
import { type BoxFolder, readState, writeState } from './box-folder.js';

const fileDigest = (f: GuestFile) => createHash('sha256').update(f.content).digest('hex');

/** Writes the files whose content differs from what the folder's VM was last given (no syncs: they are written again when they change). */
export async function writeGuestFiles(agent: AgentClient, folder: BoxFolder, files: GuestFile[]): Promise<void> {
  const had = (await readState(folder))?.guestFiles ?? {};
  const changed = files.filter((f) => had[f.path] !== fileDigest(f));
  if (!changed.length) return;
  // pipelined (the agent multiplexes file streams); each write is all-or-nothing (rename)
  await Promise.all(changed.map((f) => agent.writeFile(f.path, { mode: f.mode, createParents: true, durable: false }, Buffer.from(f.content))));
  const written = Object.fromEntries(changed.map((f) => [f.path, fileDigest(f)]));
  const state = await readState(folder);
  if (state) await writeState(folder, { ...state, guestFiles: { ...state.guestFiles, ...written } });
}
