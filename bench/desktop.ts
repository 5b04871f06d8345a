/**
 * `npm run bench:desktop [-- --runs 5 --many 8]`: desktop boxes' figures (issue 37), through
 * the HTTP API of a real service, with ratios against a plain box measured in the same run:
 *   first:   create a desktop box -> first screenshot, p50 (the template holds the desktop
 *            running) / create a plain box -> exec `true`
 *   shot:    screenshot 1024x768, p50 / exec `true` on the same box
 *   click:   a click -> the changed frame in the live view (the box's VNC server, read
 *            through the /v1/desktop/vnc WebSocket: the first framebuffer update after the
 *            click), p50
 *   many:    idle PSS per desktop box with N boxes / per plain box with N boxes
 * The desktop image is built once from the shipped recipe (as the VM test does); the first
 * create of each kind builds its template (not counted).
 */
import { rm } from 'node:fs/promises';
import WebSocket from 'ws';
import { benchService } from './bench-service.js';
import { readExecStream } from '../src-server/test-support/exec-stream.js';
import { provideDesktopImage } from '../src-server/areas/desktop/test-support/desktop-image.js';
import { boxQemuPids, med, pssSplitMiB, r1, r3, stockReady, sumPssMiB } from './runtime-support.js';

const argv = process.argv.slice(2);
const opt = (name: string, def: number) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : def);
const RUNS = opt('--runs', 5);
const MANY = opt('--many', 8);
const now = () => performance.now();

const { svc, dataDir, api, post, key } = await benchService('bxd-');
await provideDesktopImage(dataDir);
const exec = async (id: string, command: string) => {
  const { exit } = readExecStream(await (await api(`/v1/boxes/${id}/exec`, { command })).text());
  if (exit?.status !== 'succeeded') throw new Error(`exec ${command} failed`);
};
const shot = async (id: string) => Buffer.from(await (await api(`/v1/boxes/${id}/desktop/screenshot`)).arrayBuffer());
const terminate = (id: string) => post(`/v1/boxes/${id}/terminate`);
const create = async (name: string, image?: string) => {
  // a template build under TCG can outlast fetch's 300 s headers timeout: ask again, the build goes on
  for (let i = 0; ; i++) {
    const b = await post('/v1/boxes', { app_id: appId, name: `${name}${i || ''}`, size: 's', ...(image ? { image } : {}) }).catch((e: Error) =>
      i < 3 ? undefined : Promise.reject(e),
    );
    if (b) return b.box_id as string;
  }
};

const appId = (await post('/v1/apps/find', { name: 'bench-desktop', mint_if_missing: true })).id;
const out: Record<string, Record<string, unknown>> = {};

// warm-ups: the two templates (plain; desktop with its screen up)
let t = now();
const wp = await create('warm-plain');
await exec(wp, 'true');
const plainWarmS = (now() - t) / 1000;
t = now();
const wd = await create('warm-desk', 'desktop');
await shot(wd);
const deskWarmS = (now() - t) / 1000;
await Promise.all([terminate(wp), terminate(wd)]);

// each create takes a warm clone, as a create a while after the last one does: both pools refilled first
const get = async (p: string) => (await api(p)).json();
const poolsReady = async () => {
  for (const image of ['debian', 'desktop'])
    if (!(await stockReady(get, 'warm_clones', 120_000, image))) throw new Error(`the ${image} warm pool did not refill within 120 s`);
};
const firstShot: number[] = [];
const firstExec: number[] = [];
for (let i = 0; i < RUNS; i++) {
  await poolsReady();
  let t0 = now();
  const p = await create(`p${i}`);
  await exec(p, 'true');
  firstExec.push(now() - t0);
  await poolsReady();
  t0 = now();
  const d = await create(`d${i}`, 'desktop');
  await shot(d);
  firstShot.push(now() - t0);
  await Promise.all([terminate(p), terminate(d)]);
}
out.first = {
  'create desktop box -> first screenshot, p50 ms (goal <= 1000)': r1(med(firstShot)),
  'baseline: create plain box -> exec true, p50 ms': r1(med(firstExec)),
  ratio: r3(med(firstShot) / med(firstExec)),
  'template builds (not counted): plain s, desktop s': `${r1(plainWarmS)}, ${r1(deskWarmS)}`,
};

await poolsReady(); // the refills of the creates above would share the CPU with the shots
const box = await create('shots', 'desktop');
await poolsReady();
const shots: number[] = [];
const execs: number[] = [];
for (let i = 0; i < RUNS * 3; i++) {
  let t0 = now();
  const png = await shot(box);
  shots.push(now() - t0);
  if (png.readUInt32BE(16) !== 1024 || png.readUInt32BE(20) !== 768) throw new Error('the screenshot is not 1024x768');
  t0 = now();
  await exec(box, 'true');
  execs.push(now() - t0);
}
out.shot = {
  'screenshot 1024x768, p50 ms (goal <= 150)': r1(med(shots)),
  'baseline: exec true, p50 ms': r1(med(execs)),
  ratio: r3(med(shots) / med(execs)),
};

// click -> changed frame in the live view: an RFB client on the VNC WebSocket asks for
// incremental updates; the time from sending the click to the first update that follows it
const rfb = new WebSocket(`${svc.url.replace('http', 'ws')}/v1/desktop/vnc?box_id=${box}`, { headers: { authorization: `Bearer ${key}` } });
let stage = 0;
let updateAt = 0;
let pending: (() => void) | undefined;
const request = () => rfb.send(Buffer.from([3, 1, 0, 0, 0, 0, 4, 0, 3, 0])); // incremental FramebufferUpdateRequest 1024x768
rfb.on('message', (m: Buffer) => {
  const reply = [Buffer.from('RFB 003.008\n'), Buffer.from([1]), Buffer.from([1])][stage]; // version; security None; ClientInit (shared)
  if (reply) rfb.send(reply);
  if (stage < 4)
    stage++; // the last of them: ServerInit
  else if (m[0] === 0) {
    updateAt = now();
    pending?.();
  }
});
await new Promise<void>((resolve, reject) => (rfb.once('error', reject), setTimeout(resolve, 3000)));
const clickFrames: number[] = [];
// where the time goes: the action's round trip (an exec of xdotool in the box) and the rest
// (Xfce draws its menu, x11vnc notices the change and sends it)
const clickAnswered: number[] = [];
for (let i = 0; i < RUNS * 2; i++) {
  // the desktop's empty area: a right click opens Xfce's menu there, Escape closes it
  request();
  await new Promise((r) => setTimeout(r, 1000));
  const seen = new Promise<void>((r) => (pending = r));
  const t0 = now();
  await post(`/v1/boxes/${box}/desktop/actions`, { type: 'click', x: 600 + i * 10, y: 400, button: 'right' });
  const answered = now();
  clickAnswered.push(answered - t0);
  request();
  await Promise.race([seen, new Promise((r) => setTimeout(r, 10_000))]);
  clickFrames.push(updateAt > t0 ? updateAt - t0 : 10_000);
  pending = undefined;
  await post(`/v1/boxes/${box}/desktop/actions`, { type: 'key', keys: 'Escape' });
}
rfb.close();
out.click = {
  'click -> changed frame in the live view, p50 ms (goal <= 200)': r1(med(clickFrames)),
  'of it: the click action answered (xdotool in the box), p50 ms': r1(med(clickAnswered)),
  'of it: answered -> the frame (the menu drawn, x11vnc sends it), p50 ms': r1(med(clickFrames.map((f, i) => f - clickAnswered[i]!))),
  'baseline: exec true, p50 ms': r1(med(execs)),
};
await terminate(box);

const idle = async (image?: string) => {
  const ids = [];
  for (let i = 0; i < MANY; i++) ids.push(await create(`${image ?? 'plain'}-many${i}`, image));
  if (image) await Promise.all(ids.map((id) => shot(id)));
  else await Promise.all(ids.map((id) => exec(id, 'true')));
  await new Promise((r) => setTimeout(r, 15_000));
  const pids = boxQemuPids(dataDir); // the boxes', not the warm clones and spares waiting
  const pss = sumPssMiB(pids) / MANY;
  const split = pssSplitMiB(pids);
  await Promise.all(ids.map((id) => terminate(id)));
  await new Promise((r) => setTimeout(r, 5_000));
  return { pss, n: pids.length, split: `guest RAM ${r1(split.guest / MANY)}, TCG code ${r1(split.tcg / MANY)}, QEMU ${r1(split.qemu / MANY)}` };
};
const plain = await idle();
const desk = await idle('desktop');
out.many = {
  [`idle PSS per desktop box, ${MANY} boxes, MiB (goal <= 150)`]: r1(desk.pss),
  [`baseline: idle PSS per plain box, ${MANY} boxes, MiB`]: r1(plain.pss),
  ratio: r3(desk.pss / plain.pss),
  'per desktop box, MiB': desk.split,
  'per plain box, MiB': plain.split,
  'QEMU processes counted (desktop)': desk.n,
};

console.log(JSON.stringify(out, null, 2));
await svc.close();
await rm(dataDir, { recursive: true, force: true });
