import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import type { Readable } from 'node:stream';
import { invalid, notFound } from '../../kernel/domain-errors.js';
import type { ImageBuildEvent, ImageBuildPort } from './ports.js';
import { boxfileOf, TemplateSpecError, type TemplateSpec } from './template-boxfile.js';

const execFileP = promisify(execFile);
/** E2B's own base image and templates: Box's default image. */
const BASES = new Set(['e2bdev/base', 'e2bdev/base:latest', 'base', 'code-interpreter-v1', 'debian']);
const IMAGE_NAME = /^[a-z0-9][a-z0-9._-]{0,127}$/;
const HASH = /^[0-9a-f]{64}$/;

type Level = 'debug' | 'info' | 'warn' | 'error';
interface LogEntry {
  timestamp: string;
  level: Level;
  message: string;
  step?: string;
}
interface Build {
  orgId: string;
  templateID: string;
  buildID: string;
  memoryMib?: number;
  status: 'waiting' | 'building' | 'ready' | 'error';
  logs: LogEntry[];
  reason?: { message: string; step?: string };
}

/** A template's Box image name: E2B's `name:tag` is `name-tag` (image names have no tags). */
function imageNameOf(template: string): string {
  const name = template.toLowerCase().replace(':', '-');
  if (!IMAGE_NAME.test(name)) throw invalid(`name: "${template}" must be lowercase letters, digits, ".", "-" or "_" (and one ":tag")`, 'name');
  return name;
}

/**
 * E2B's template builds (the `Template` builder of `e2b` 2.x) on Box's image builder: a
 * build request names the template (its Box image name is its id), copied files come up
 * through a signed upload URL (kept by their hash, so an unchanged copy is not re-sent), and
 * the build turns E2B's steps into a Boxfile built in builder VMs, its progress the build's
 * log. The result is an image, usable as the template at create. One build runs at a time
 * (each step boots a VM); builds are kept in memory for their status.
 */
export class TemplateBuilds {
  private builds = new Map<string, Build>();
  private queue: Promise<unknown> = Promise.resolve();
  private secret = crypto.randomBytes(32);

  constructor(
    private images: ImageBuildPort,
    private dir: string,
  ) {}

  request(orgId: string, body: { name?: string; alias?: string; tags?: string[] | null; memoryMB?: number | null }) {
    const full = body.name ?? body.alias;
    if (!full) throw invalid('name is required: the template to build', 'name');
    const [name, tag] = full.split(':');
    const tags = [...(tag ? [tag] : []), ...(body.tags ?? [])];
    const templateID = imageNameOf(tags.length ? `${name}:${tags[0]}` : name!);
    const buildID = crypto.randomUUID();
    this.builds.set(buildID, { orgId, templateID, buildID, status: 'waiting', logs: [], memoryMib: body.memoryMB ?? undefined });
    return { templateID, buildID, names: [full], aliases: [name!], tags, public: false };
  }

  private sign = (hash: string) => crypto.createHmac('sha256', this.secret).update(hash).digest('base64url');
  private filePath = (hash: string) => path.join(this.dir, 'files', hash);

  /** Where the SDK puts a copy's files, or `present` when this hash was uploaded before. */
  uploadLink(orgId: string, templateID: string, hash: string, origin: string) {
    this.find(orgId, templateID);
    if (fs.existsSync(this.filePath(hash))) return { present: true };
    return { present: false, url: `${origin}/e2b/template-files/${hash}?signature=${this.sign(hash)}` };
  }

  /** The signed upload (a tar, gzipped or not, of a copy's files); false when the signature is not ours. */
  async upload(hash: string, signature: string, body: Readable): Promise<boolean> {
    const want = this.sign(hash);
    if (!HASH.test(hash) || signature.length !== want.length || !crypto.timingSafeEqual(Buffer.from(signature), Buffer.from(want))) return false;
    fs.mkdirSync(path.dirname(this.filePath(hash)), { recursive: true });
    const tmp = `${this.filePath(hash)}.${crypto.randomBytes(4).toString('hex')}.part`;
    await pipeline(body, fs.createWriteStream(tmp));
    fs.renameSync(tmp, this.filePath(hash));
    return true;
  }

  private find(orgId: string, templateID: string, buildID?: string): Build {
    const b = buildID ? this.builds.get(buildID) : [...this.builds.values()].find((x) => x.templateID === templateID);
    if (!b || b.orgId !== orgId || b.templateID !== templateID)
      throw notFound(`Build ${buildID ?? ''} of template ${templateID} not found`, 'not_found', 'buildID');
    return b;
  }

  start(
    orgId: string,
    templateID: string,
    buildID: string,
    spec: TemplateSpec & { fromImage?: string; fromTemplate?: string; fromImageRegistry?: unknown },
  ): void {
    const b = this.find(orgId, templateID, buildID);
    if (b.status !== 'waiting') throw invalid(`Build ${buildID} was already started`, 'buildID');
    b.status = 'building';
    this.queue = this.queue.then(() => this.run(b, spec)).catch(() => {});
  }

  private log(b: Build, level: Level, message: string, step?: number) {
    b.logs.push({ timestamp: new Date().toISOString(), level, message, ...(step !== undefined ? { step: String(step) } : {}) });
  }

  private async base(spec: { fromImage?: string; fromTemplate?: string; fromImageRegistry?: unknown }): Promise<string> {
    if (spec.fromImageRegistry)
      throw new TemplateSpecError(
        "Box builds from its own images and cannot pull from a registry (fromImageRegistry); import the image with 'box image import' and use its name",
      );
    const from = spec.fromTemplate ?? spec.fromImage;
    if (!from) throw new TemplateSpecError('give fromImage or fromTemplate');
    if (BASES.has(from)) return 'debian';
    const name = from.toLowerCase().replace(':', '-');
    if (IMAGE_NAME.test(name) && (await this.images.has(name))) return name;
    throw new TemplateSpecError(
      `${spec.fromTemplate ? 'fromTemplate' : 'fromImage'} '${from}': Box builds from its own images, with no registry access; build from the base image (fromBaseImage), a template built here, or an image imported with 'box image import' (docker save) under a name`,
    );
  }

  private async run(b: Build, spec: TemplateSpec & { fromImage?: string; fromTemplate?: string; fromImageRegistry?: unknown }): Promise<void> {
    const context = path.join(this.dir, 'builds', b.buildID);
    try {
      const base = await this.base(spec);
      fs.mkdirSync(context, { recursive: true });
      const unpacked = new Map<string, string>();
      for (const [i, s] of (spec.steps ?? []).entries()) {
        if (s.type.toUpperCase() !== 'COPY' || !s.filesHash || unpacked.has(s.filesHash)) continue;
        if (!fs.existsSync(this.filePath(s.filesHash))) throw new TemplateSpecError(`copy: the files of step ${i + 1} were not uploaded`, i);
        const dir = `files-${unpacked.size}`;
        fs.mkdirSync(path.join(context, dir));
        await execFileP('tar', ['-xf', this.filePath(s.filesHash), '-C', path.join(context, dir), '--no-same-owner']);
        unpacked.set(s.filesHash, dir);
      }
      const boxfile = boxfileOf(base, spec, context, (_i, hash) => unpacked.get(hash)!);
      if (spec.readyCmd) this.log(b, 'info', "readyCmd is not run at build: Box starts the start command at each boot of the template's sandboxes");
      this.log(b, 'info', `Building the Box image ${b.templateID} from ${base}`);
      let step: number | undefined;
      await this.images.build({
        boxfile,
        context,
        name: b.templateID,
        memoryMib: b.memoryMib,
        onEvent: (e: ImageBuildEvent) => {
          if (e.type === 'step') {
            step = e.index;
            this.log(b, 'info', `[${e.index}/${e.total}] ${e.text}${e.cached ? ' (cached)' : ''}`, step);
          } else if (e.type === 'output')
            for (const line of e.text.split('\n').filter(Boolean)) this.log(b, e.stream === 'stderr' ? 'warn' : 'info', line, step);
          else this.log(b, 'info', e.text, step);
        },
      });
      this.log(b, 'info', `Template ${b.templateID} is ready`);
      b.status = 'ready';
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      this.log(b, 'error', message);
      b.reason = { message, ...(e instanceof TemplateSpecError && e.step !== undefined ? { step: String(e.step + 1) } : {}) };
      b.status = 'error';
    } finally {
      fs.rmSync(context, { recursive: true, force: true });
    }
  }

  status(orgId: string, templateID: string, buildID: string, logsOffset = 0) {
    const b = this.find(orgId, templateID, buildID);
    const reason = b.reason && { ...b.reason, logEntries: b.logs.filter((l) => l.level === 'error') };
    return { templateID, buildID, status: b.status, logEntries: b.logs.slice(logsOffset), logs: [], ...(reason ? { reason } : {}) };
  }

  /** Whether a template of this name exists: E2B's base templates, or a Box image. */
  async exists(alias: string): Promise<boolean> {
    if (BASES.has(alias)) return true;
    const name = alias.toLowerCase().replace(':', '-');
    return IMAGE_NAME.test(name) && this.images.has(name);
  }
}
