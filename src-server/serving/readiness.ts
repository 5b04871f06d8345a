import type { AppBase } from '../app-context.js';
import type { Readiness as ReadinessBody } from '../contract/serving.js';
import { MIGRATIONS } from '../db/migrations/index.js';

/** What readiness asks of the templates area: the state of each warm template. */
export interface TemplatesState {
  list(): Promise<{ template_id: string; state: string; error?: string }[]>;
}

/**
 * Ready = the store answers, every migration this build knows is applied, and no warm
 * template is still being built (a create during the default template's first build boots
 * cold: correct, but seconds instead of milliseconds). A failed template does not make the
 * service unready (boxes then boot cold); its error is shown.
 */
export class Readiness {
  constructor(
    private app: AppBase,
    private templates: TemplatesState,
  ) {}

  async check(): Promise<ReadinessBody> {
    let store = { ok: true, detail: 'open' };
    let migrations = { ok: false, detail: 'not checked' };
    try {
      // the one read outside a repository: whether the schema this build expects is there
      const applied = new Set((await this.app.db.all<{ id: number }>('SELECT id FROM schema_migrations')).map((r) => Number(r.id)));
      const missing = MIGRATIONS.filter((m) => !applied.has(m.id));
      migrations = missing.length
        ? { ok: false, detail: `${missing.length} of ${MIGRATIONS.length} not applied (${missing.map((m) => m.id).join(', ')})` }
        : { ok: true, detail: `${MIGRATIONS.length} applied` };
    } catch (e) {
      store = { ok: false, detail: (e as Error).message };
    }
    let templates = { ok: true, detail: 'none prepared' };
    try {
      const list = await this.templates.list();
      const building = list.filter((t) => t.state === 'building');
      const failed = list.filter((t) => t.state === 'failed');
      if (building.length) templates = { ok: false, detail: `${building.map((t) => t.template_id).join(', ')} building` };
      else if (list.length)
        templates = {
          ok: true,
          detail: `${list.length - failed.length} ready${failed.length ? `; failed (boxes boot cold): ${failed.map((t) => `${t.template_id}: ${t.error ?? 'failed'}`).join('; ')}` : ''}`,
        };
    } catch (e) {
      templates = { ok: false, detail: (e as Error).message };
    }
    return { ready: store.ok && migrations.ok && templates.ok, checks: { store, migrations, templates } };
  }
}
