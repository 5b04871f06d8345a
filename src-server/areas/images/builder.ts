/**
 * `box image build -f Boxfile -t NAME [context]`. Each RUN and COPY step runs inside a
 * builder box (a real VM booted from the previous layer, through the QEMU runtime), never
 * on the host, behind the egress proxy with the builder policy (package registries only by
 * default). A step's result is its disk layer: the builder's qcow2 overlay, kept as
 * layers/<key>.qcow2 where key = sha256(parent key, instruction, its inputs: COPY content,
 * ENV/WORKDIR/USER in effect). A rebuild reuses every layer whose key is unchanged, so
 * changing the last line re-runs only that step. ENV/WORKDIR/USER/CMD only change the run
 * config (and the keys after them). A failed step throws BuildError with the step's output
 * tail; its builder disk is dropped and no image name is written.
 * `PACKAGES` (right after `FROM debian`) is the exception that runs on the host: the
 * built-in image's recipe with those Debian packages added (mmdebstrap, as the built-in
 * image is built: minutes, where apt in a TCG builder box took tens of minutes), written as
 * layers/<key>.raw, the ext4 disk the next steps' builder boxes start from.
 */
import { execFile } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { BoxRuntime, GuestAgent, ImageResolver } from '../boxes/ports.js';
import type { ImageRunConfig } from '@box/contract/images';
import type { PolicyDocument } from '@box/contract/policies';
import { BoxfileError, parseBoxfile, type Step } from './boxfile.js';
import { copyPlan, hashCopy } from './build-context.js';
import { packageRegistriesPolicy, startBuilderProxy } from './builder-egress.js';
import { BUILTIN_IMAGE, type ImageManifest, type ImageStore } from './image-store.js';

type BuildEvent =
  | { type: 'step'; index: number; total: number; text: string; cached: boolean }
  | { type: 'output'; stream: 'stdout' | 'stderr'; text: string }
  | { type: 'info'; text: string };

/** What building needs of the VM runtime; index.ts gives it the QEMU runtime, without warm templates. */
interface BuilderVms {
  runtime: Pick<BoxRuntime, 'create' | 'agent' | 'stop' | 'destroy' | 'close'> & Required<Pick<BoxRuntime, 'setImageResolver'>>;
  /** The disk file of a stopped builder box: it becomes the step's layer. */
  diskOf(boxId: string): string;
}

export interface BuildOptions {
  store: ImageStore;
  /** Builder boxes' VMs, on the store's data dir. */
  vms: (dataDir: string) => BuilderVms;
  /** Boxfile text. */
  boxfile: string;
  context: string;
  name: string;
  onEvent?: (e: BuildEvent) => void;
  /** Egress policy of the builder box; default: package registries only. */
  policy?: PolicyDocument;
  memoryMib?: number;
  /** Builds `PACKAGES` on the host (index.ts: the built-in image's recipe with them added). */
  packages?: (o: { dataDir: string; packages: string[]; out: string; sizeGib: number; onProgress: (message: string) => void }) => Promise<void>;
}

interface BuildResult {
  manifest: ImageManifest;
  steps: { line: number; text: string; cached: boolean; seconds: number }[];
}

export class BuildError extends Error {
  constructor(
    readonly step: Step,
    message: string,
  ) {
    super(`step at Boxfile line ${step.line} (${step.text}) failed: ${message}`);
  }
}

const execFileP = promisify(execFile);
const PROXY_URL = 'http://10.0.2.100:3128';
const PROXY_ENV = { http_proxy: PROXY_URL, https_proxy: PROXY_URL, HTTP_PROXY: PROXY_URL, HTTPS_PROXY: PROXY_URL, no_proxy: 'localhost,127.0.0.1' };
/** Builder disk size: the smallest box disk, so every box size can use the image. */
const BUILD_DISK_GIB = 4;
const LAYER_PREFIX = '@layer:';

const hash = (...parts: string[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(createHash('sha256').update(p).digest());
  return h.digest('hex');
};

/** Runs argv in the guest, streaming output; resolves with the exit code and the output tail. */
async function run(agent: GuestAgent, opts: Parameters<GuestAgent['exec']>[0], onEvent: (e: BuildEvent) => void) {
  const ex = agent.exec(opts);
  let tail = '';
  const keep = (s: string) => (tail = (tail + s).slice(-4000));
  ex.stdout.on('data', (b: Buffer) => (keep(b.toString()), onEvent({ type: 'output', stream: 'stdout', text: b.toString() })));
  ex.stderr.on('data', (b: Buffer) => (keep(b.toString()), onEvent({ type: 'output', stream: 'stderr', text: b.toString() })));
  const r = await ex.exit;
  return { code: r.exitCode, signal: r.signal, timedOut: r.timedOut, tail };
}

export async function buildImage(opts: BuildOptions): Promise<BuildResult> {
  const { store } = opts;
  const emit = opts.onEvent ?? (() => {});
  const steps = parseBoxfile(opts.boxfile);
  const from = steps[0] as Extract<Step, { op: 'FROM' }>;
  if (from.image === opts.name) throw new BoxfileError(from.line, 'an image cannot be built FROM itself');
  const baseManifest = await store.get(from.image);
  if (!baseManifest) throw new BoxfileError(from.line, `unknown image "${from.image}" (see box image list)`);
  emit({ type: 'step', index: 1, total: steps.length, text: from.text, cached: true });
  const base = (await store.resolve(from.image))!;
  const state: ImageRunConfig = { ...baseManifest.config, env: { ...baseManifest.config.env } };
  let key = hash('FROM', base.digest);
  let parent = { path: base.rootfs, format: base.format };
  const ownFiles: string[] = [];
  const done: BuildResult['steps'] = [{ line: from.line, text: from.text, cached: true, seconds: 0 }];

  let vms: BuilderVms | undefined;
  let proxy: Awaited<ReturnType<typeof startBuilderProxy>> | undefined;
  const ensureRuntime = async () => {
    if (vms) return vms.runtime;
    proxy = await startBuilderProxy(opts.policy ?? (await packageRegistriesPolicy()), (host) =>
      emit({ type: 'info', text: `egress refused: ${host} (builder policy)` }),
    );
    // Builder boxes cold-boot from the previous layer (index.ts gives a runtime without warm templates).
    vms = opts.vms(store.dataDir);
    const resolver: ImageResolver = async (name) => {
      if (!name.startsWith(LAYER_PREFIX)) return store.resolve(name);
      const [format, ...p] = name.slice(LAYER_PREFIX.length).split(':');
      return { rootfs: p.join(':'), format: format as 'raw' | 'qcow2', lineage: [name] };
    };
    vms.runtime.setImageResolver(resolver);
    return vms.runtime;
  };

  try {
    await mkdir(store.layersDir, { recursive: true });
    for (const [i, step] of steps.entries()) {
      if (step.op === 'FROM') continue;
      const started = Date.now();
      if (step.op === 'PACKAGES') {
        if (from.image !== BUILTIN_IMAGE) throw new BoxfileError(step.line, `PACKAGES builds on the built-in image: FROM ${BUILTIN_IMAGE}`);
        if (!opts.packages) throw new BoxfileError(step.line, 'PACKAGES is not available in this build');
        key = hash(key, 'PACKAGES', JSON.stringify(step.packages));
        const layer = join(store.layersDir, `${key}.raw`);
        const cached = existsSync(layer);
        emit({ type: 'step', index: i + 1, total: steps.length, text: step.text, cached });
        if (!cached) {
          try {
            await opts.packages({
              dataDir: store.dataDir,
              packages: step.packages,
              out: `${layer}.tmp`,
              sizeGib: BUILD_DISK_GIB - 1,
              onProgress: (text) => emit({ type: 'output', stream: 'stdout', text: `${text}\n` }),
            });
          } catch (e) {
            await rm(`${layer}.tmp`, { force: true });
            throw new BuildError(step, (e as Error).message);
          }
          await rename(`${layer}.tmp`, layer);
        }
        ownFiles.push(layer);
        parent = { path: layer, format: 'raw' };
        done.push({ line: step.line, text: step.text, cached, seconds: (Date.now() - started) / 1000 });
        continue;
      }
      if (step.op === 'ENV') Object.assign(state.env, step.vars);
      else if (step.op === 'WORKDIR') state.workdir = step.path;
      else if (step.op === 'USER') state.user = step.user;
      else if (step.op === 'CMD') state.cmd = step.argv;
      let input = '';
      if (step.op === 'RUN') input = JSON.stringify([step.argv, state.env, state.workdir, state.user]);
      const copies = step.op === 'COPY' ? copyPlan(opts.context, step.sources, step.dest, state.workdir ?? '/', step.chmod, step.line) : [];
      if (step.op === 'COPY') input = hashCopy(copies);
      key = hash(key, step.op, step.op === 'RUN' || step.op === 'COPY' ? input : step.text);
      if (step.op !== 'RUN' && step.op !== 'COPY') {
        emit({ type: 'step', index: i + 1, total: steps.length, text: step.text, cached: true });
        done.push({ line: step.line, text: step.text, cached: true, seconds: 0 });
        continue;
      }
      const layer = join(store.layersDir, `${key}.qcow2`);
      const cached = existsSync(layer);
      emit({ type: 'step', index: i + 1, total: steps.length, text: step.text, cached });
      if (!cached) {
        const rt = await ensureRuntime();
        const boxId = `build-${randomUUID()}`;
        try {
          await rt.create({
            boxId,
            hostname: 'builder',
            image: `${LAYER_PREFIX}${parent.format}:${parent.path}`,
            vcpus: 1,
            memoryMib: opts.memoryMib ?? 1024,
            diskGib: BUILD_DISK_GIB,
            mounts: [],
            forwards: [],
            proxyPort: proxy!.port,
          });
          const agent = await rt.agent(boxId);
          if (state.workdir) await run(agent, { argv: ['mkdir', '-p', state.workdir] }, () => {});
          if (step.op === 'RUN') {
            const r = await run(
              agent,
              { argv: step.argv, env: { ...PROXY_ENV, ...state.env }, cwd: state.workdir ?? undefined, user: state.user ?? undefined },
              emit,
            );
            if (r.code !== 0)
              throw new BuildError(
                step,
                `exit ${r.code ?? `signal ${r.signal}`}${r.timedOut ? ' (timed out)' : ''}\n${r.tail.split('\n').slice(-15).join('\n')}`,
              );
          } else {
            await copyInto(agent, copies, step, emit);
          }
          const s = await run(agent, { argv: ['sync'] }, () => {});
          if (s.code !== 0) throw new BuildError(step, 'sync failed in the builder box');
          await rt.stop(boxId);
          await untilUnlocked(vms!.diskOf(boxId));
          await rename(vms!.diskOf(boxId), `${layer}.tmp`);
          await rename(`${layer}.tmp`, layer);
        } finally {
          await rt.destroy(boxId).catch(() => {});
        }
      }
      ownFiles.push(layer);
      parent = { path: layer, format: 'qcow2' };
      done.push({ line: step.line, text: step.text, cached, seconds: (Date.now() - started) / 1000 });
    }
  } finally {
    await vms?.runtime.close();
    await proxy?.close();
  }

  const manifest: ImageManifest = {
    name: opts.name,
    digest: `sha256:${hash(key, JSON.stringify(state))}`,
    source: 'boxfile',
    base: from.image,
    created_at: new Date().toISOString(),
    disk: parent.path,
    diskFormat: parent.format,
    ownFiles,
    config: state,
  };
  await store.put(manifest);
  return { manifest, steps: done };
}

/**
 * Waits until no process holds the disk's image lock. A SIGKILLed QEMU's main thread shows
 * as a zombie while its other threads still hold the files (and their locks) for a moment.
 */
async function untilUnlocked(disk: string, timeoutMs = 20_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      await execFileP('qemu-img', ['info', '--output=json', disk]);
      return;
    } catch (e) {
      if (Date.now() > until) throw new Error(`the builder disk stays locked: ${(e as Error).message}`, { cause: e });
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

async function copyInto(agent: GuestAgent, items: ReturnType<typeof copyPlan>, step: Step, emit: (e: BuildEvent) => void) {
  const dirs = items.filter((i) => i.dir);
  if (dirs.length) {
    const args = dirs.flatMap((d) => [d.mode.toString(8), d.guestPath]);
    const r = await run(
      agent,
      { argv: ['/bin/sh', '-c', 'while [ $# -gt 0 ]; do mkdir -p "$2" && chmod "$1" "$2" || exit 1; shift 2; done', 'copy', ...args] },
      emit,
    );
    if (r.code !== 0) throw new BuildError(step, `creating folders failed: ${r.tail}`);
  }
  for (const f of items.filter((i) => !i.dir)) {
    try {
      await agent.writeFile(f.guestPath, { mode: f.mode, createParents: true }, createReadStream(f.hostPath!));
    } catch (e) {
      throw new BuildError(step, `writing ${f.guestPath}: ${(e as Error).message}`);
    }
  }
  emit({ type: 'info', text: `copied ${items.length - dirs.length} files, ${dirs.length} folders` });
}
