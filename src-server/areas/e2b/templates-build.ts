import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import type { Readable } from 'node:stream';
import { conflict, invalid, notFound } from '../../kernel/domain-errors.js';
import type { Db } from '../../platform/db/connection.js';
import type { ImageBuildEvent, ImageBuildPort } from './ports.js';
import { templateOf, templateWithBuilds, type Build, type Status } from './template-catalog.js';
import { boxfileOf, TemplateSpecError, type TemplateSpec } from './template-boxfile.js';
import { cleanTags, DEFAULT_TAG, parseName, TemplateTags } from './template-tags.js';

const execFileP = promisify(execFile);
/** E2B's own base image and templates: Box's default image. */
const BASES = new Set(['e2bdev/base', 'e2bdev/base:latest', 'base', 'code-interpreter-v1', 'debian']);
const IMAGE_NAME = /^[a-z0-9][a-z0-9._-]{0,127}$/;
const HASH = /^[0-9a-f]{64}$/;

type Level = 'debug' | 'info' | 'warn' | 'error';

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
 * (each step boots a VM). Builds and their logs are kept in the database
 * (e2b_template_builds, e2b_template_build_logs): listed and deleted as E2B's `/templates`
 * does, and still there after a restart (a build the restart cut short ends in `error`).
 */
export class TemplateBuilds {
  private queue: Promise<unknown> = Promise.resolve();
  private secret = crypto.randomBytes(32);
  /** The next log line's number of each running build. */
  private seq = new Map<string, number>();
  /** Log lines are written in order, behind the build (its events come synchronously); a status waits for them. */
  private writes: Promise<void> = Promise.resolve();
  private writeError: unknown;

  readonly tags: TemplateTags;

  constructor(
    private db: Db,
    private images: ImageBuildPort,
    private dir: string,
  ) {
    this.tags = new TemplateTags(db);
  }

  /** At start: a build the last run of the service cut short ends in `error`, saying so. */
  async recover(): Promise<void> {
    const cut = await this.db.all<{ build_id: string }>("SELECT build_id FROM e2b_template_builds WHERE status IN ('waiting', 'building')");
    for (const { build_id } of cut) {
      const next = await this.db.get<{ n: number }>('SELECT COALESCE(MAX(seq) + 1, 0) AS n FROM e2b_template_build_logs WHERE build_id = ?', [build_id]);
      this.seq.set(build_id, Number(next?.n ?? 0));
      await this.fail(build_id, 'The service stopped before this build finished: build the template again.');
    }
  }

  async request(orgId: string, body: { name?: string; alias?: string; tags?: string[] | null; memoryMB?: number | null }) {
    const full = body.name ?? body.alias;
    if (!full) throw invalid('name is required: the template to build', 'name');
    const { name, tag } = parseName(full, body.name ? 'name' : 'alias');
    const asked = cleanTags([...(tag ? [tag] : []), ...(body.tags ?? [])], 'tags');
    const templateID = imageNameOf(asked.length ? `${name}:${asked[0]}` : name);
    const tags = asked.length ? asked : [DEFAULT_TAG];
    const buildID = crypto.randomUUID();
    const at = new Date().toISOString();
    await this.db.run(
      `INSERT INTO e2b_template_builds (build_id, org_id, template_id, status, memory_mib, created_at, updated_at, name, tags)
       VALUES (?, ?, ?, 'waiting', ?, ?, ?, ?, ?)`,
      [buildID, orgId, templateID, body.memoryMB ?? null, at, at, name, JSON.stringify(tags)],
    );
    return { templateID, buildID, names: [full], aliases: [name], tags, public: false };
  }

  private sign = (hash: string) => crypto.createHmac('sha256', this.secret).update(hash).digest('base64url');
  private filePath = (hash: string) => path.join(this.dir, 'files', hash);

  /** Where the SDK puts a copy's files, or `present` when this hash was uploaded before. */
  async uploadLink(orgId: string, templateID: string, hash: string, origin: string) {
    await this.find(orgId, templateID);
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

  private async builds(orgId: string, templateID: string): Promise<Build[]> {
    return await this.db.all<Build>('SELECT * FROM e2b_template_builds WHERE org_id = ? AND template_id = ? ORDER BY created_at DESC, build_id DESC', [
      orgId,
      templateID,
    ]);
  }

  private async find(orgId: string, templateID: string, buildID?: string): Promise<Build> {
    const b = buildID ? await this.db.get<Build>('SELECT * FROM e2b_template_builds WHERE build_id = ?', [buildID]) : (await this.builds(orgId, templateID))[0];
    if (!b || b.org_id !== orgId || b.template_id !== templateID)
      throw notFound(`Build ${buildID ?? ''} of template ${templateID} not found`, 'not_found', buildID ? 'buildID' : 'templateID');
    return b;
  }

  /** Its new status, once the log lines before it are written. */
  private async setStatus(buildID: string, status: Status, reason?: { message: string; step?: string }) {
    await this.writes;
    if (this.writeError) {
      const e = this.writeError;
      this.writeError = undefined;
      throw e;
    }
    const at = new Date().toISOString();
    const done = status === 'ready' || status === 'error';
    await this.db.run('UPDATE e2b_template_builds SET status = ?, reason = ?, updated_at = ?, finished_at = ? WHERE build_id = ?', [
      status,
      reason ? JSON.stringify(reason) : null,
      at,
      done ? at : null,
      buildID,
    ]);
    if (done) this.seq.delete(buildID);
  }

  private async fail(buildID: string, message: string, step?: number) {
    this.log(buildID, 'error', message);
    await this.setStatus(buildID, 'error', { message, ...(step !== undefined ? { step: String(step + 1) } : {}) });
  }

  async start(
    orgId: string,
    templateID: string,
    buildID: string,
    spec: TemplateSpec & { fromImage?: string; fromTemplate?: string; fromImageRegistry?: unknown },
  ): Promise<void> {
    const b = await this.find(orgId, templateID, buildID);
    if (b.status !== 'waiting') throw invalid(`Build ${buildID} was already started`, 'buildID');
    // only one start of a waiting build wins
    const { changes } = await this.db.run("UPDATE e2b_template_builds SET status = 'building', updated_at = ? WHERE build_id = ? AND status = 'waiting'", [
      new Date().toISOString(),
      buildID,
    ]);
    if (!changes) throw invalid(`Build ${buildID} was already started`, 'buildID');
    this.seq.set(buildID, 0);
    this.queue = this.queue.then(() => this.run(b, spec)).catch(() => {});
  }

  /** Appends a log line (numbered now, written in order: see `writes`). */
  private log(buildID: string, level: Level, message: string, step?: number) {
    const seq = this.seq.get(buildID) ?? 0;
    this.seq.set(buildID, seq + 1);
    const row = [buildID, seq, new Date().toISOString(), level, message, step !== undefined ? String(step) : null];
    this.writes = this.writes
      .then(async () => {
        await this.db.run('INSERT INTO e2b_template_build_logs (build_id, seq, at, level, message, step) VALUES (?, ?, ?, ?, ?, ?)', row);
      })
      .catch((e: unknown) => {
        this.writeError ??= e;
      });
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
    const id = b.build_id;
    const context = path.join(this.dir, 'builds', id);
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
      if (spec.readyCmd) this.log(id, 'info', "readyCmd is not run at build: Box starts the start command at each boot of the template's sandboxes");
      this.log(id, 'info', `Building the Box image ${b.template_id} from ${base}`);
      let step: number | undefined;
      await this.images.build({
        boxfile,
        context,
        name: b.template_id,
        memoryMib: b.memory_mib ?? undefined,
        onEvent: (e: ImageBuildEvent) => {
          if (e.type === 'step') {
            step = e.index;
            this.log(id, 'info', `[${e.index}/${e.total}] ${e.text}${e.cached ? ' (cached)' : ''}`, step);
          } else if (e.type === 'output')
            for (const line of e.text.split('\n').filter(Boolean)) this.log(id, e.stream === 'stderr' ? 'warn' : 'info', line, step);
          else this.log(id, 'info', e.text, step);
        },
      });
      this.log(id, 'info', `Template ${b.template_id} is ready`);
      // its tags point to it now (a failed build takes none)
      if (b.name && b.tags) await this.tags.tagBuild(b.org_id, b.name, JSON.parse(b.tags) as string[], id);
      await this.setStatus(id, 'ready');
    } catch (e) {
      await this.fail(id, e instanceof Error ? e.message : String(e), e instanceof TemplateSpecError ? e.step : undefined);
    } finally {
      fs.rmSync(context, { recursive: true, force: true });
    }
  }

  async status(orgId: string, templateID: string, buildID: string, logsOffset = 0) {
    const b = await this.find(orgId, templateID, buildID);
    const logs = (
      await this.db.all<{ at: string; level: Level; message: string; step: string | null }>(
        'SELECT at, level, message, step FROM e2b_template_build_logs WHERE build_id = ? AND seq >= ? ORDER BY seq',
        [buildID, logsOffset],
      )
    ).map((l) => ({ timestamp: l.at, level: l.level, message: l.message, ...(l.step !== null ? { step: l.step } : {}) }));
    const reason = b.reason
      ? { ...(JSON.parse(b.reason) as { message: string; step?: string }), logEntries: logs.filter((l) => l.level === 'error') }
      : undefined;
    return { templateID, buildID, status: b.status, logEntries: logs, logs: [], ...(reason ? { reason } : {}) };
  }

  /** E2B's `GET /templates`: the organization's templates built here, newest build first. */
  async list(orgId: string) {
    const ids = await this.db.all<{ template_id: string }>(
      'SELECT template_id FROM e2b_template_builds WHERE org_id = ? GROUP BY template_id ORDER BY MAX(created_at) DESC',
      [orgId],
    );
    const out = [];
    for (const { template_id } of ids) out.push(templateOf(template_id, await this.builds(orgId, template_id)));
    return out;
  }

  /** E2B's `GET /templates/{templateID}`: a template and its builds, newest first. */
  async get(orgId: string, templateID: string) {
    const builds = await this.builds(orgId, templateID);
    if (!builds.length) throw notFound(`Template ${templateID} not found`, 'not_found', 'templateID');
    return templateWithBuilds(templateID, builds);
  }

  /** Whether the organization built this template here (E2B's DELETE /templates/{id} then deletes it). */
  async has(orgId: string, templateID: string): Promise<boolean> {
    return (await this.builds(orgId, templateID)).length > 0;
  }

  /** Deletes a template: its Box image (409 while a box uses it), its builds and their logs. */
  async delete(orgId: string, templateID: string): Promise<void> {
    const builds = await this.builds(orgId, templateID);
    if (!builds.length) throw notFound(`Template ${templateID} not found`, 'not_found', 'templateID');
    if (builds.some((b) => b.status === 'building'))
      throw conflict(`Template ${templateID} is being built: wait for the build to end, then delete it.`, 'failed_precondition', 'templateID');
    if (await this.images.has(templateID)) await this.images.remove(orgId, templateID);
    await this.db.transaction(async () => {
      for (const b of builds) {
        await this.db.run('DELETE FROM e2b_template_build_logs WHERE build_id = ?', [b.build_id]);
        await this.db.run('DELETE FROM e2b_template_tags WHERE build_id = ?', [b.build_id]);
      }
      await this.db.run('DELETE FROM e2b_template_builds WHERE org_id = ? AND template_id = ?', [orgId, templateID]);
    });
  }

  /** Whether a template of this name exists: E2B's base templates, or a Box image. */
  async exists(alias: string): Promise<boolean> {
    if (BASES.has(alias)) return true;
    const name = alias.toLowerCase().replace(':', '-');
    return IMAGE_NAME.test(name) && this.images.has(name);
  }
}
