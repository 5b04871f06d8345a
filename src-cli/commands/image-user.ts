/**
 * Your own images. Building and importing are not HTTP operations (spec item 6: "need an
 * SDK or the CLI"): like `box image build` for the built-in image, they run in this
 * process through the service's own image code (src-server/areas/images) on the service's data
 * dir, so progress and each step's output stream straight to the terminal and the service
 * lists the result at once (it reads the store on each request). Listing and deleting go
 * through the service, which knows which boxes use an image.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse, type Command, type Ctx } from '../args.js';
import { CliError } from '../errors.js';
import { ago, bytes, json, table } from '../output.js';

const images = () => import('#image-builder');

export async function buildBoxfile(ctx: Ctx, values: { tag?: string; file?: string; 'data-dir'?: string }, contextArg?: string) {
  if (!values.tag) throw new CliError('-t NAME is required to build a Boxfile', 2);
  const context = path.resolve(contextArg ?? '.');
  const file = path.resolve(values.file ?? path.join(context, 'Boxfile'));
  if (!fs.existsSync(file)) throw new CliError(`no Boxfile at ${file} (use -f)`, 2);
  const im = await images();
  if (!im.IMAGE_NAME.test(values.tag)) throw new CliError(`invalid image name "${values.tag}": lowercase letters, digits, ".", "-", "_"`, 2);
  const store = new im.ImageStore(path.resolve(values['data-dir'] ?? ctx.config.dataDir));
  const started = Date.now();
  try {
    const r = await im.buildImage({
      store,
      boxfile: fs.readFileSync(file, 'utf8'),
      context,
      name: values.tag,
      onEvent: (e) => {
        if (e.type === 'step') process.stderr.write(`\x1b[1mStep ${e.index}/${e.total}: ${e.text}${e.cached ? ' (cached)' : ''}\x1b[0m\n`);
        else if (e.type === 'output') (e.stream === 'stdout' ? process.stdout : process.stderr).write(e.text);
        else process.stderr.write(`  ${e.text}\n`);
      },
    });
    const seconds = (Date.now() - started) / 1000;
    if (ctx.json) return json({ ...r.manifest, seconds, steps: r.steps });
    const cached = r.steps.filter((s) => s.cached).length;
    process.stdout.write(`built ${r.manifest.name} (${r.manifest.digest.slice(0, 19)}) in ${seconds.toFixed(1)} s, ${cached}/${r.steps.length} steps cached\n`);
  } catch (e) {
    if (e instanceof im.BuildError || e instanceof im.BoxfileError) throw new CliError(e.message, 1);
    throw e;
  }
}

export const importCmd: Command = {
  usage: 'box image import ARCHIVE.tar -t NAME [--data-dir dir]',
  summary: 'Import a `docker save` or OCI-layout archive as an image (runs on this machine)',
  async run(ctx, argv) {
    const { values, positionals } = parse(argv, this.usage, { tag: { type: 'string', short: 't' }, 'data-dir': { type: 'string' } }, [1, 1]);
    if (!values.tag) throw new CliError(`-t NAME is required\nusage: ${this.usage}`, 2);
    const archive = path.resolve(positionals[0]!);
    if (!fs.existsSync(archive)) throw new CliError(`no such file: ${archive}`, 2);
    const im = await images();
    if (!im.IMAGE_NAME.test(values.tag)) throw new CliError(`invalid image name "${values.tag}"`, 2);
    const store = new im.ImageStore(path.resolve(values['data-dir'] ?? ctx.config.dataDir));
    const started = Date.now();
    try {
      const m = await im.importOciArchive(store, archive, values.tag, (p) => process.stderr.write(`${p.step}: ${p.message}\n`));
      if (ctx.json) return json(m);
      process.stdout.write(
        `imported ${m.name} (${m.digest.slice(0, 19)}) in ${((Date.now() - started) / 1000).toFixed(1)} s${m.config.cmd ? `; CMD ${JSON.stringify(m.config.cmd)}` : ''}\n`,
      );
    } catch (e) {
      throw new CliError(`import failed: ${(e as Error).message}`, 1);
    }
  },
};

export const list: Command = {
  usage: 'box image list',
  summary: 'Images boxes can start from (built-in, Boxfile builds, OCI imports), with the boxes using them',
  async run(ctx, argv) {
    parse(argv, this.usage, {});
    const { data } = await ctx.client.call('GET /v1/images');
    if (ctx.json) return json(data);
    table(
      ['name', 'source', 'base', 'size', 'created', 'boxes', 'digest'],
      data.map((i) => [i.name, i.source, i.base ?? '-', bytes(i.size_bytes), ago(i.created_at), i.boxes.length, i.digest.slice(0, 19)]),
    );
  },
};

export const rm: Command = {
  usage: 'box image rm NAME',
  summary: 'Delete an image (refused while a box uses it)',
  async run(ctx, argv) {
    const { positionals } = parse(argv, this.usage, {}, [1, 1]);
    const img = await ctx.client.call('DELETE /v1/images/:name', { params: { name: positionals[0]! } });
    if (ctx.json) return json(img);
    process.stdout.write(`deleted ${img.name}\n`);
  },
};
