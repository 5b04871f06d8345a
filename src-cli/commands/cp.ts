import type { Answer } from '@box/contract/call';
import fs from 'node:fs';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parse, type Command } from '../args.js';
import { seg, type BoxClient } from '../client.js';
import { CliError } from '../errors.js';
import { bar, bytes, progressLine } from '../output.js';
import { resolveBoxId } from '../resolve.js';

/** Files this big or bigger show progress on stderr. */
const PROGRESS_MIN_BYTES = 8 * 1024 * 1024;

/** `<box>:<path>` → [box, path]; a local path (no colon before the first slash) → undefined. */
function remoteOf(arg: string): { box: string; path: string } | undefined {
  const i = arg.indexOf(':');
  if (i <= 0 || arg.slice(0, i).includes('/')) return undefined;
  return { box: arg.slice(0, i), path: arg.slice(i + 1) };
}

/** Counts bytes through, reporting progress against an expected total (null when unknown). */
function meter(label: string, total: number | null, quiet: boolean) {
  let done = 0;
  const started = Date.now();
  const show = !quiet && (total === null || total >= PROGRESS_MIN_BYTES);
  const line = progressLine();
  const text = () => {
    const rate = done / Math.max(0.001, (Date.now() - started) / 1000);
    return `${label} ${total ? bar((done / total) * 100, 24) : ''} ${bytes(done)}${total ? ` of ${bytes(total)}` : ''} ${bytes(rate)}/s`;
  };
  const t = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      done += chunk.length;
      if (show && (total === null ? done >= PROGRESS_MIN_BYTES : true)) line.update(text());
      cb(null, chunk);
    },
  });
  return { stream: t, finish: () => show && done >= PROGRESS_MIN_BYTES && line.done(text()), bytes: () => done };
}

export const cp: Command = {
  usage: 'box cp <local> <box>:<path> | box cp <box>:<path> <local|-> [--mode 0755] [--quiet]',
  summary: 'Stream a file into or out of a box (progress on stderr for big files; "-" is stdin/stdout)',
  async run(ctx, argv) {
    const { values, positionals } = parse(argv, this.usage, { mode: { type: 'string' }, quiet: { type: 'boolean', short: 'q' } }, [2, 2]);
    const [src, dst] = positionals as [string, string];
    const from = remoteOf(src);
    const to = remoteOf(dst);
    if (from && to) throw new CliError('copy between two boxes: copy out to a local file, then in', 2);
    if (!from && !to) throw new CliError(`one side must be <box>:<path>\nusage: ${this.usage}`, 2);
    if (to) {
      const boxId = await resolveBoxId(ctx.client, to.box);
      return upload(ctx.client, `/v1/boxes/${seg(boxId)}/files`, src, to.path, `${to.box}:`, values.mode, !!values.quiet);
    }
    const boxId = await resolveBoxId(ctx.client, from!.box);
    return download(ctx.client, `/v1/boxes/${seg(boxId)}/files`, from!.path, dst, !!values.quiet);
  },
};

/** PUT `<filesPath>?path=` streaming a local file ("-": stdin); a target ending in "/" gets the file's name. */
export async function upload(client: BoxClient, filesPath: string, local: string, remote: string, label: string, mode: string | undefined, quiet: boolean) {
  const stdin = local === '-';
  let size: number | null = null;
  if (!stdin) {
    const st = fs.statSync(local, { throwIfNoEntry: false });
    if (!st) throw new CliError(`${local}: no such file`, 4);
    if (!st.isFile()) throw new CliError(`${local}: not a regular file (directories are not copied)`, 2);
    size = st.size;
  }
  const target = remote.endsWith('/') ? `${remote}${stdin ? 'stdin' : path.basename(local)}` : remote;
  const m = meter(`${stdin ? 'stdin' : path.basename(local)} →`, size, quiet);
  const source = stdin ? process.stdin : fs.createReadStream(local);
  const body = source.pipe(m.stream);
  source.on('error', (e: Error) => m.stream.destroy(e));
  const res = await client.request<Answer<'PUT /v1/boxes/:box_id/files'>>('PUT', filesPath, {
    query: { path: target, mode },
    body,
    headers: { 'content-type': 'application/octet-stream', ...(size !== null ? { 'content-length': String(size) } : {}) },
  });
  m.finish();
  if (size !== null && res.size_bytes !== size) throw new CliError(`short write: the box stored ${res.size_bytes} of ${size} bytes`);
  if (!quiet) process.stderr.write(`${bytes(res.size_bytes)} written to ${label}${target}\n`);
}

/** GET `<filesPath>?path=` into a local file ("-": stdout), through a temp file renamed at the end. */
export async function download(client: BoxClient, filesPath: string, remote: string, local: string, quiet: boolean) {
  const from = { path: remote };
  const res = await client.raw('GET', filesPath, { query: { path: remote } });
  const len = res.headers.get('content-length');
  const toStdout = local === '-';
  let target = local;
  if (!toStdout && fs.statSync(local, { throwIfNoEntry: false })?.isDirectory()) target = path.join(local, path.posix.basename(from.path));
  const m = meter(`${path.posix.basename(from.path)} ←`, len ? Number(len) : null, quiet || toStdout);
  // Write beside the target and rename at the end: an interrupted copy never leaves a truncated file.
  const tmp = `${target}.box-partial`;
  const modeHeader = res.headers.get('x-box-file-mode');
  const sink = toStdout ? process.stdout : fs.createWriteStream(tmp, { mode: modeHeader ? Number(modeHeader) & 0o777 : 0o644 });
  try {
    await pipeline(Readable.fromWeb(res.body as import('node:stream/web').ReadableStream), m.stream, sink, { end: !toStdout });
  } catch (e) {
    if (!toStdout) fs.rmSync(tmp, { force: true });
    throw new CliError(`download of ${from.path} broke after ${bytes(m.bytes())}: ${(e as Error).message}`);
  }
  m.finish();
  if (len && m.bytes() !== Number(len)) {
    if (!toStdout) fs.rmSync(tmp, { force: true });
    throw new CliError(`download of ${from.path} ended after ${m.bytes()} of ${len} bytes`);
  }
  if (!toStdout) {
    fs.renameSync(tmp, target);
    if (!quiet) process.stderr.write(`${bytes(m.bytes())} written to ${target}\n`);
  }
}
