import fs from 'node:fs';
import path from 'node:path';
import { dispatch, parse, type Command, type Group } from '../args.js';
import { CliError } from '../errors.js';
import { bar, bytes, json, progressLine, table } from '../output.js';
import { buildBoxfile, importCmd, list, rm } from './image-user.js';

/**
 * The guest image is built on this machine, not over HTTP (spec item 6): these commands
 * call the image builder of the service code directly, on the data dir (or BOX_IMAGE_CACHE),
 * through the one module the CLI may load of the service (src-server/areas/images/index.ts).
 * Loaded lazily so that the other commands never import server code.
 */
const builder = () => import('#image-builder');

const build: Command = {
  usage: 'box image build -t NAME [-f Boxfile] [--data-dir dir] [context-dir]  |  box image build [--force] [--no-agent] [--data-dir dir]',
  summary: 'Build an image from a Boxfile in builder boxes (-t), or build (or check) the built-in guest image',
  async run(ctx, argv) {
    const { values, positionals } = parse(
      argv,
      this.usage,
      {
        tag: { type: 'string', short: 't' },
        file: { type: 'string', short: 'f' },
        force: { type: 'boolean' },
        'no-agent': { type: 'boolean' },
        'data-dir': { type: 'string' },
        yes: { type: 'boolean' },
      },
      [0, 1],
    );
    if (values.tag !== undefined || values.file !== undefined || positionals.length) return buildBoxfile(ctx, values, positionals[0]);
    const dataDir = path.resolve(values['data-dir'] ?? ctx.config.dataDir);
    const gi = await builder();
    const agentDir = path.join(gi.RESOURCES_DIR, 'guest', 'agent');
    if (!values['no-agent'] && fs.existsSync(path.join(agentDir, 'Makefile'))) {
      process.stderr.write(`building the guest agent (make -C ${agentDir})\n`);
      try {
        gi.buildAgentSync();
      } catch {
        throw new CliError('building the guest agent failed (see above)');
      }
    }
    if (values.force) await forget(ctx, gi, dataDir, values.yes === true);
    const started = Date.now();
    const line = progressLine(2000);
    let last = '';
    const image = await gi.ensureGuestImage({
      dataDir,
      onProgress: (p) => {
        const text = `${bar(p.percent)} ${p.phase}: ${p.message}`;
        line.update(text, p.phase !== last);
        last = p.phase;
      },
    });
    line.done();
    const seconds = (Date.now() - started) / 1000;
    if (ctx.json) return json({ ...image, seconds });
    process.stdout.write(`${image.cached ? 'already built' : `built in ${seconds.toFixed(1)} s`}: ${image.dir}\n`);
    if (image.agent.placeholder) process.stderr.write('warning: the image carries the placeholder agent (resources/guest/build/box-agent is missing)\n');
  },
};

/**
 * Removes the current recipe's parts so that they are built again. Boxes reference the
 * part files as their disk's backing file, so this is refused while the service reports
 * live boxes (or cannot be asked, unless --yes).
 */
async function forget(ctx: Parameters<Command['run']>[0], gi: Awaited<ReturnType<typeof builder>>, dataDir: string, yes: boolean) {
  try {
    const live = (await ctx.client.call('GET /v1/boxes', { query: { limit: 100 } })).data.filter((b) => b.status !== 'terminated' && b.status !== 'failed');
    if (live.length)
      throw new CliError(`${live.length} live boxes use the current image's files; terminate them before --force (${live.map((b) => b.name).join(', ')})`, 5);
  } catch (e) {
    if (e instanceof CliError && e.exitCode === 5) throw e;
    if (!yes) throw new CliError(`cannot ask the service whether boxes use the image (${(e as Error).message}); pass --yes to rebuild anyway`, 5);
  }
  const root = gi.imageCacheRoot(dataDir);
  const keys = await gi.computeImageKeys(gi.guestAgentBinary().path);
  for (const d of [`parts/kernel-${keys.kernel}`, `parts/rootfs-${keys.rootfs}`, `parts/initrd-${keys.initrd}`, keys.recipe]) {
    fs.rmSync(path.join(root, d), { recursive: true, force: true });
  }
}

const du = (p: string): number => {
  const st = fs.lstatSync(p, { throwIfNoEntry: false });
  if (!st) return 0;
  if (!st.isDirectory()) return st.blocks * 512;
  return fs.readdirSync(p).reduce((n, f) => n + du(path.join(p, f)), 0);
};

const cache: Command = {
  usage: 'box image cache [--data-dir dir]',
  summary: 'Cached guest images and their parts (* marks the one the current recipe builds)',
  async run(ctx, argv) {
    const { values } = parse(argv, this.usage, { 'data-dir': { type: 'string' } });
    const gi = await builder();
    const root = gi.imageCacheRoot(path.resolve(values['data-dir'] ?? ctx.config.dataDir));
    const current = await gi
      .computeImageKeys(gi.guestAgentBinary().path)
      .then((k) => k.recipe)
      .catch(() => '');
    const images = (fs.existsSync(root) ? fs.readdirSync(root) : [])
      .filter((d) => fs.existsSync(path.join(root, d, 'image.json')))
      .map((d) => {
        const m = JSON.parse(fs.readFileSync(path.join(root, d, 'image.json'), 'utf8')) as {
          recipeHash: string;
          kernelVersion: string;
          builtAt?: string;
          kernel: string;
          initrd: string;
          rootfs: string;
          agent: { placeholder: boolean };
        };
        const parts = [m.kernel, m.initrd, m.rootfs].map((f) => path.dirname(f));
        return {
          recipe: d,
          current: d === current,
          kernel_version: m.kernelVersion,
          built_at: m.builtAt ?? null,
          placeholder_agent: m.agent.placeholder,
          parts_present: parts.every((p) => fs.existsSync(p)),
          bytes: parts.reduce((n, p) => n + du(p), 0),
        };
      });
    const unused = await gi.unreferencedParts(path.resolve(values['data-dir'] ?? ctx.config.dataDir)).catch(() => [] as string[]);
    if (ctx.json) return json({ root, images, unreferenced_parts: unused });
    process.stdout.write(`cache: ${root}\n`);
    table(
      ['', 'recipe', 'kernel', 'built', 'size', 'complete', 'agent'],
      images.map((i) => [
        i.current ? '*' : ' ',
        i.recipe,
        i.kernel_version,
        i.built_at,
        bytes(i.bytes),
        i.parts_present ? 'yes' : 'NO',
        i.placeholder_agent ? 'placeholder' : 'built',
      ]),
    );
    if (unused.length) process.stdout.write(`${unused.length} unreferenced parts: ${unused.map((u) => path.basename(u)).join(', ')}\n`);
  },
};

const group: Group = { build, import: importCmd, list, rm, cache };
export const image: Command = {
  usage: 'box image build|import|list|rm|cache',
  summary: 'Images boxes start from: Boxfile builds and OCI imports run on this machine (CLI only); list and rm through the service',
  group,
  run: (ctx, argv) => dispatch(ctx, group, 'box image', argv),
};
