import type { CreateBoxBody } from '@box/contract/boxes';
import { invalid, notFound } from '../../kernel/domain-errors.js';
import { UnknownImage, type BoxesPort, type CheckpointsPort, type NewBox, type Principal } from './ports.js';

/** E2B's templates that are Box's default image (`mcp-gateway`: what the SDK asks for with `mcp`). */
const DEFAULT_TEMPLATES = new Set(['base', 'code-interpreter-v1', 'debian', 'mcp-gateway']);

/**
 * The box of a new sandbox from an E2B template id: a snapshot (`boxcp_…`, a Box checkpoint),
 * E2B's base templates (Box's default image), or a Box image of that name (built with
 * `box image build` or E2B's `Template.build`). `policyId`: its network rules' HTTP policy.
 */
export async function boxForTemplate(
  deps: { boxes: BoxesPort; checkpoints: CheckpointsPort },
  auth: Principal,
  o: { template: string; name: string; appId: string; policyId?: string; volumeMounts?: Array<{ volume_id: string; mount_path: string }> },
): Promise<NewBox> {
  const { template, name } = o;
  if (template.startsWith('boxcp_')) {
    if (o.volumeMounts?.length) throw invalid('volumeMounts: a sandbox from a snapshot keeps the volume mounts of its snapshot; give none', 'volumeMounts');
    const made = await deps.checkpoints.fromCheckpoint(auth, await deps.checkpoints.get(auth.orgId, template), name);
    if (o.policyId) await deps.boxes.setHttpPolicy(made.box.box_id, o.policyId);
    return made;
  }
  const image = DEFAULT_TEMPLATES.has(template) ? 'debian' : template;
  const body: CreateBoxBody = { app_id: o.appId, name, image, size: 's', visibility: 'org', ingress_ports: [], volume_mounts: o.volumeMounts ?? [] };
  return deps.boxes.create(auth, { ...body, auto_sleep: { automatic: false }, http_policy_id: o.policyId }).catch((e: unknown) => {
    if (e instanceof UnknownImage) throw notFound(`template '${template}' not found: no Box image of that name`, 'not_found', 'templateID');
    throw e;
  });
}
