/**
 * `npm run bench:first-run [-- --no-rebuild] [--keep]`: a fresh install's path to its first
 * box (issue 35), through the HTTP API of a real service (as `npm start` runs it: the image
 * in layers, the default template prepared at start, a first box that does not wait for it)
 * on a temp data dir and an empty image cache:
 *   cold:    service start -> the image's base built (base tree, rootfs, kernel, initrd:
 *            each phase's end seen in GET /v1/status) -> first box running (a cold boot from
 *            the base) -> a `1+1` in it answered (a 409 naming the code layer being
 *            prepared) -> the code interpreter's layer built over the base (the `code`
 *            stage ready) -> a template on the full image ready -> a new box's `1+1`
 *            answered `2` ("code ready")
 *   rebuild: the same with the image cache kept but its rootfs, kernel, initrd and images
 *            dropped, as after a recipe change that leaves the package lists alone (the
 *            base tree, the code layer and the downloaded .debs stay); a new data dir, so
 *            the templates are built again too
 * CPU seconds of the image builds: the recipe scripts are this process's children (QEMU
 * daemonizes: not counted), read from /proc/self/stat when each build ends.
 * Prints one table (seconds) and the load average around each run: on the shared 2-core
 * machine a wall time means something only beside its load.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
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
/** CPU seconds of this process's waited-for children (the recipe scripts and what they ran). */
const childCpu = () => {
  const f = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[13]) + Number(f[14])) / 100; // cutime, cstime (fields 16, 17), at 100 Hz
};

interface Run {
  [phase: string]: number | string;
}
type Stage = { name: string; state: string; message: string; built_at?: string };

async function firstRun(label: string): Promise<Run> {
  const loadBefore = load();
  const t0 = now();
  const cpu0 = childCpu();
  const { svc, dataDir, api, post, key } = await benchService('bxfr-');
  const row: Run = { run: label, 'load before': loadBefore };
  // The image stage's message names the phase under way (boxes/preparation.ts): a phase
  // ends when the next one is first seen.
  let polling = true;
  let last = '';
  let codeReadyAt = 0;
  const poll = (async () => {
    while (polling) {
      const st = (await (await api('/v1/status')).json()) as { preparation?: { stages: Stage[] } };
      const stage = (n: string) => st.preparation?.stages.find((s) => s.name === n);
      const image = stage('image');
      if (stage('code')?.state === 'ready' && row['code layer ready'] === undefined) {
        row['code layer ready'] = s1(now() - t0);
        row['layer CPU s'] = Math.round((childCpu() - Number(row['base CPU s'] ?? 0) - cpu0) * 10) / 10;
        codeReadyAt = Date.now();
      }
      const phase =
        image?.state === 'ready'
          ? 'image'
          : (/^(installing the Debian packages|building the Debian root|preparing the kernel|packing)/.exec(image?.message ?? '')?.[1] ?? '');
      if (phase && phase !== last) {
        if (last) row[`${last} done`] = s1(now() - t0);
        last = phase;
        if (phase === 'image') {
          row['base image ready'] = s1(now() - t0);
          row['base CPU s'] = Math.round((childCpu() - cpu0) * 10) / 10;
        }
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  const appId = (await post('/v1/apps/find', { name: 'bench-first-run', mint_if_missing: true })).id;
  // a create that waits for the image can outlast fetch's 300 s headers timeout: ask again
  const create = async (name: string) => {
    let box: { box_id: string; last_start?: { from?: string } } | undefined;
    for (let i = 0; !box; i++)
      box = await post('/v1/boxes', { app_id: appId, name: `${name}${i}` }).catch((e: Error) => (i < 3 ? undefined : Promise.reject(e)));
    return box;
  };
  const box = await create('first');
  row['box running'] = s1(now() - t0);
  row['first box from'] = box.last_start?.from ?? '?';
  const t1 = now();
  const early = await fetch(`${svc.url}/v1/boxes/${box.box_id}/code/run`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ code: '1+1' }),
  });
  row['1+1 in it'] = `${early.status} in ${Math.round(now() - t1)} ms`; // 409: the box is on the base
  // the code layer lands, then a template is built on the full image (the code interpreter warm in it)
  while (!codeReadyAt && now() - t0 < 1_800_000) await new Promise((r) => setTimeout(r, 500));
  for (;;) {
    const { data } = (await (await api('/v1/templates')).json()) as { data: { state: string; built_at: string | null }[] };
    if (data.some((t) => t.state === 'ready' && Date.parse(t.built_at!) > codeReadyAt)) break;
    if (now() - t0 > 2_400_000) throw new Error('no template on the full image');
    await new Promise((r) => setTimeout(r, 500));
  }
  row['full template ready'] = s1(now() - t0);
  const second = await create('second');
  const x = await post(`/v1/boxes/${second.box_id}/code/run`, { code: '1+1' });
  if (x.error) throw new Error(`1+1: ${x.error.name}: ${x.error.value}`);
  row["code ready (a new box's 1+1)"] = s1(now() - t0);
  polling = false;
  await poll;
  row['base image ready → box running'] = s1((Number(row['box running']) - Number(row['base image ready'] ?? 0)) * 1000);
  row['load after'] = load();
  // A box outlives its service (on_quit): terminate it, or its QEMU is left running once the data dir is gone.
  // Every box: a create asked again after fetch's headers timeout leaves the first one running too.
  const { data: all } = (await (await api('/v1/boxes?limit=100')).json()) as { data: { box_id: string; status: string }[] };
  for (const b of all) if (b.status !== 'terminated') await post(`/v1/boxes/${b.box_id}/terminate`, {});
  await svc.close();
  if (!argv.includes('--keep')) await rm(dataDir, { recursive: true, force: true });
  return row;
}

/** Drops every part but the base tree, the code layer and the .debs, and every built image: a recipe change outside the package lists. */
async function dropAllButBase(): Promise<void> {
  const root = join(cache, 'images', 'debian');
  for (const d of readdirSync(root)) if (existsSync(join(root, d, 'image.json'))) await rm(join(root, d), { recursive: true, force: true });
  for (const p of readdirSync(join(root, 'parts')))
    if (!p.startsWith('base-') && !p.startsWith('layer-') && p !== 'debs') await rm(join(root, 'parts', p), { recursive: true, force: true });
}

const rows = [await firstRun('cold')];
if (!argv.includes('--no-rebuild')) {
  await dropAllButBase();
  rows.push(await firstRun('rebuild'));
}
console.table(rows);
if (!argv.includes('--keep')) await rm(cache, { recursive: true, force: true });
else console.log(`kept: the image cache ${cache}`);
