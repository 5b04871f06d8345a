import type { TemplateInfo, TemplatePort } from '../boxes/ports.js';
import { SIZES } from '@box/contract/boxes';
import type { Template } from '@box/contract/templates';
import { conflict, notFound } from '../../kernel/domain-errors.js';

/** The box size whose machine shape this is, else "custom". */
function sizeName(t: TemplateInfo): string {
  for (const [name, s] of Object.entries(SIZES)) {
    if (s.vcpu_count === t.shape.vcpus && s.memory_mib === t.shape.memoryMib && s.disk_gib === t.shape.diskGib) return name;
  }
  return 'custom';
}

function toTemplate(t: TemplateInfo): Template {
  return {
    template_id: t.templateId,
    image: t.shape.image,
    size: sizeName(t),
    vcpu_count: t.shape.vcpus,
    memory_mib: t.shape.memoryMib,
    disk_gib: t.shape.diskGib,
    volume_slots: !!t.shape.volumeSlots,
    state: t.state,
    ...(t.progress ? { progress: t.progress } : {}),
    ...(t.error ? { error: t.error } : {}),
    built_at: t.builtAt,
    bytes: t.bytes,
    boxes: t.boxes,
    warm_clones: t.warmClones ?? 0,
    restore_spares: t.restoreSpares ?? 0,
  };
}

/**
 * Templates are machine-wide (like the guest image): every organization's boxes clone
 * them. A runtime without templates lists none.
 */
export class TemplateService {
  constructor(private port: TemplatePort | undefined) {}

  async list(): Promise<Template[]> {
    return ((await this.port?.list()) ?? []).map(toTemplate);
  }

  async get(id: string): Promise<Template> {
    const t = (await this.list()).find((x) => x.template_id === id);
    if (!t) throw notFound(`No template ${id}.`, null, 'template_id');
    return t;
  }

  /** Refused (409) while a box or checkpoint builds on it or while it is being built. */
  async remove(id: string): Promise<Template> {
    const t = await this.get(id);
    const r = await this.port!.remove(id);
    if (r === 'in_use')
      throw conflict(`Template ${id} is in use by ${t.boxes} box(es) or a checkpoint; terminate or delete them first.`, 'template_in_use', 'template_id');
    if (r === 'building') throw conflict(`Template ${id} is being built; delete it once it is ready.`, 'template_building', 'template_id');
    if (r === 'not_found') throw notFound(`No template ${id}.`, null, 'template_id');
    return t;
  }

  /** Builds the default image's template for the default size in the background. */
  prepareDefault(image: string, log: (msg: string) => void) {
    const s = SIZES.s;
    void this.port
      ?.prepare({ image, vcpus: s.vcpu_count, memoryMib: s.memory_mib, diskGib: s.disk_gib })
      .catch((e: Error) => log(`preparing the default template failed: ${e.message}`));
  }
}
