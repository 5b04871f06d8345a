/**
 * `npm run bench:first-run [-- --no-rebuild] [--keep]`: a fresh install's path to its first
 * box (issue 35), through the HTTP API of a real service on a temp data dir and an empty
 * image cache:
 *   cold:    service start -> guest image built (base, rootfs, kernel, initrd: each phase's
 *            end seen in GET /v1/status) -> first box running (a cold boot from the image:
 *            it does not wait for the template) -> the code interpreter's `1+1` answered
 *            in it -> the template ready (with the code interpreter warm in it)
 *   rebuild: the same with the image cache kept but its rootfs, kernel, initrd and image
 *            dropped, as after a recipe change that leaves the package list alone (the
 *            base tree and the downloaded .debs stay); a new data dir, so the template is
 *            built again too
 * Prints one table (seconds) and the load average around each run: on the shared 2-core
 * machine a wall time means something only beside its load.
 */
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

const argv = process.argv.slice(2);
const cache = await mkdtemp(join(tmpdir(), 'box-first-run-cache-'));
process.env.BOX_IMAGE_CACHE = cache; // before the service reads its settings
const { benchService } = await import('./bench-service.js');

const now = () => performance.now();
const s1 = (ms: number) => Math.round(ms / 100) / 10;
const load = () => loadavg()[0]!.toFixed(1);

interface Run {
  [phase: string]: number | string;
}

async function firstRun(label: string): Promise<Run> {
  const loadBefore = load();
  const t0 = now();
  const { svc, dataDir, api, post } = await benchService('bxfr-');
  const row: Run = { run: label, 'load before': loadBefore };
  // The image stage's message names the phase under way (boxes/preparation.ts): a phase
  // ends when the next one is first seen.
  let polling = true;
  let last = '';
  const poll = (async () => {
    while (polling) {
      const st = (await (await api('/v1/status')).json()) as { preparation?: { stages: { name: string; state: string; message: string }[] } };
      const image = st.preparation?.stages.find((s) => s.name === 'image');
      // the first box does not wait for the template (it cold-boots meanwhile): its own column
      if (st.preparation?.stages.find((s) => s.name === 'template')?.state === 'ready') row['template ready'] ??= s1(now() - t0);
      const phase =
        image?.state === 'ready'
          ? 'image'
          : (/^(installing the Debian packages|building the Debian root|preparing the kernel|packing)/.exec(image?.message ?? '')?.[1] ?? '');
      if (phase && phase !== last) {
        if (last) row[`${last} done`] = s1(now() - t0);
        last = phase;
        if (phase === 'image') row['image ready'] = s1(now() - t0);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  const appId = (await post('/v1/apps/find', { name: 'bench-first-run', mint_if_missing: true })).id;
  // a create that waits for the image and the template can outlast fetch's 300 s headers timeout: ask again
  let box: { box_id: string } | undefined;
  for (let i = 0; !box; i++) box = await post('/v1/boxes', { app_id: appId, name: `first${i}` }).catch((e: Error) => (i < 3 ? undefined : Promise.reject(e)));
  row['box running'] = s1(now() - t0);
  row['first box from'] = (box as { last_start?: { from?: string } }).last_start?.from ?? '?';
  const x = await post(`/v1/boxes/${box.box_id}/code/run`, { code: '1+1' });
  if (x.error) throw new Error(`1+1: ${x.error.name}: ${x.error.value}`);
  row['code ready'] = s1(now() - t0);
  // the template (with the code interpreter warm in it) finishes in the background
  while (row['template ready'] === undefined && now() - t0 < 900_000) await new Promise((r) => setTimeout(r, 200));
  polling = false;
  await poll;
  row['image ready → box running'] = s1((Number(row['box running']) - Number(row['image ready'] ?? 0)) * 1000);
  row['load after'] = load();
  // A box outlives its service (on_quit): terminate it, or its QEMU is left running once the data dir is gone.
  // Every box: a create asked again after fetch's headers timeout leaves the first one running too.
  const { data: all } = (await (await api('/v1/boxes?limit=100')).json()) as { data: { box_id: string; status: string }[] };
  for (const b of all) if (b.status !== 'terminated') await post(`/v1/boxes/${b.box_id}/terminate`, {});
  await svc.close();
  if (!argv.includes('--keep')) await rm(dataDir, { recursive: true, force: true });
  return row;
}

/** Drops every part but the base tree and the .debs, and every built image: a recipe change outside the package list. */
async function dropAllButBase(): Promise<void> {
  const root = join(cache, 'images', 'debian');
  for (const d of readdirSync(root)) if (existsSync(join(root, d, 'image.json'))) await rm(join(root, d), { recursive: true, force: true });
  for (const p of readdirSync(join(root, 'parts')))
    if (!p.startsWith('base-') && p !== 'debs') await rm(join(root, 'parts', p), { recursive: true, force: true });
}

const rows = [await firstRun('cold')];
if (!argv.includes('--no-rebuild')) {
  await dropAllButBase();
  rows.push(await firstRun('rebuild'));
}
console.table(rows);
if (!argv.includes('--keep')) await rm(cache, { recursive: true, force: true });
else console.log(`kept: the image cache ${cache}`);
