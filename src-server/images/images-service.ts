import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { AppBase } from '../app-context.js';
import type { BoxService } from '../boxes/module.js';
import type { Image, ImageRunConfig } from '../contract/images.js';
import { conflict, notFound } from '../core/domain-errors.js';
import type { TemplateService } from '../templates/ports.js';
import { BUILTIN_IMAGE, EMPTY_CONFIG, ImageStore, type ImageManifest } from './image-store.js';

/** The warm templates (templates/): a template of an image builds on the image's disk. */
type Templates = Pick<TemplateService, 'list' | 'remove'>;

/**
 * Images as the API sees them: the store's manifests plus which boxes use each one.
 * Images are machine-wide (their disks are shared); `boxes` lists the caller's boxes.
 */
export class ImagesService {
  readonly store: ImageStore;
  private configCache = new Map<string, { mtimeMs: number; config: ImageRunConfig }>();

  constructor(
    app: AppBase,
    private boxes: BoxService,
    private templates?: Templates,
  ) {
    this.store = new ImageStore(app.config.dataDir);
  }

  names(): string[] {
    return this.store.names();
  }

  private async liveBoxes(name: string, orgId?: string): Promise<string[]> {
    const live = await this.boxes.live();
    return live.filter((b) => b.image === name && (!orgId || b.org_id === orgId)).map((b) => b.box_id);
  }

  private async toApi(m: ImageManifest, orgId: string): Promise<Image> {
    return {
      name: m.name,
      digest: m.digest,
      size_bytes: this.store.sizeBytes(m),
      created_at: m.created_at,
      source: m.source,
      base: m.base,
      boxes: await this.liveBoxes(m.name, orgId),
      config: m.config,
    };
  }

  async list(orgId: string): Promise<Image[]> {
    return await Promise.all((await this.store.list()).map((m) => this.toApi(m, orgId)));
  }

  async get(orgId: string, name: string): Promise<Image> {
    const m = await this.store.get(name);
    if (!m) throw notFound(`No image "${name}"; list them with GET /v1/images.`, 'not_found', 'name');
    return await this.toApi(m, orgId);
  }

  /**
   * Deletes an image unless a live box (of any organization) or a template in use (boxes or
   * checkpoints build on it, or it is being built) still uses it. The image's unused
   * templates go with it: they would never be cloned again.
   */
  async remove(orgId: string, name: string): Promise<Image> {
    const img = await this.get(orgId, name);
    if (name === BUILTIN_IMAGE) throw conflict(`"${BUILTIN_IMAGE}" is the built-in image and cannot be deleted.`, 'builtin_image', 'name');
    const boxes = await this.liveBoxes(name);
    const templates = ((await this.templates?.list()) ?? []).filter((t) => t.image === name);
    const others = templates
      .filter((t) => t.boxes > 0 || t.state === 'building')
      .map((t) => `template ${t.template_id} (${t.state === 'building' ? 'being built' : `${t.boxes} box(es)`})`);
    if (boxes.length || others.length) {
      const mine = await this.liveBoxes(name, orgId);
      const what = [boxes.length ? `${boxes.length} box(es)${mine.length ? ` (${mine.join(', ')})` : ''}` : '', others.length ? others.join(', ') : '']
        .filter(Boolean)
        .join(' and ');
      throw conflict(`Image "${name}" is in use by ${what}; terminate them first.`, 'image_in_use', 'name');
    }
    for (const t of templates) await this.templates!.remove(t.template_id);
    await this.store.remove(name);
    return { ...img, boxes: [] };
  }

  /** The run config (ENV, WORKDIR, USER, CMD) of an image, read synchronously (cached by file mtime). */
  configOf(name: string): ImageRunConfig {
    if (name === BUILTIN_IMAGE) return EMPTY_CONFIG;
    const path = join(this.store.root, 'refs', `${name}.json`);
    try {
      const mtimeMs = statSync(path).mtimeMs;
      const hit = this.configCache.get(name);
      if (hit?.mtimeMs === mtimeMs) return hit.config;
      const config = (JSON.parse(readFileSync(path, 'utf8')) as ImageManifest).config;
      this.configCache.set(name, { mtimeMs, config });
      return config;
    } catch {
      return EMPTY_CONFIG;
    }
  }
}
