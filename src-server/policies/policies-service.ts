import type { AppBase } from '../app-context.js';
import { newId } from '../contract/common.js';
import type { HttpPolicy, PolicyDocument } from '../contract/policies.js';
import { conflict, notFound } from '../core/domain-errors.js';
import { evaluate, type EgressRequest, type Verdict } from './evaluate.js';
import { PoliciesRepo } from './policies-repo.js';
import type { BoxPolicyLinks } from '../boxes/ports.js';

export interface PoliciesService {
  get(orgId: string, id: string): Promise<HttpPolicy | undefined>;
  /** Pure policy evaluation for the egress proxy (see evaluate.ts for the rules). */
  evaluate(document: PolicyDocument, req: EgressRequest): Verdict;
  /** Policies whose header rewrites refer to `${secrets.<name>}`. */
  referencingSecret(orgId: string, name: string): Promise<HttpPolicy[]>;
}

export class Policies implements PoliciesService {
  readonly repo: PoliciesRepo;
  private db: AppBase['db'];
  constructor(
    app: AppBase,
    private boxes: BoxPolicyLinks,
  ) {
    this.db = app.db;
    this.repo = new PoliciesRepo(app.db);
  }

  async get(orgId: string, id: string) {
    return await this.repo.get(orgId, id);
  }

  /** One page of the organization's policies, oldest first. */
  async list(orgId: string, limit: number, offset: number) {
    return await this.repo.list(orgId, limit, offset);
  }

  evaluate(document: PolicyDocument, req: EgressRequest) {
    return evaluate(document, req);
  }

  async referencingSecret(orgId: string, name: string) {
    return await this.repo.referencingSecret(orgId, name);
  }

  async mustGet(orgId: string, id: string, param = 'id'): Promise<HttpPolicy> {
    const p = await this.repo.get(orgId, id);
    if (!p) throw notFound(`No HTTP policy ${id} in this organization.`, null, param);
    return p;
  }

  async create(orgId: string, name: string, document: PolicyDocument): Promise<HttpPolicy> {
    const at = new Date().toISOString();
    const p: HttpPolicy = { id: newId('httpPolicy'), org_id: orgId, name, document, created_at: at, updated_at: at };
    await this.repo.insert(p);
    return p;
  }

  async update(orgId: string, id: string, name?: string, document?: PolicyDocument): Promise<HttpPolicy> {
    await this.mustGet(orgId, id);
    await this.repo.update(orgId, id, name, document, new Date().toISOString());
    return (await this.repo.get(orgId, id))!;
  }

  /** 409 while a live box has it attached; terminated boxes that still name it let go of it first (foreign key). */
  async delete(orgId: string, id: string): Promise<HttpPolicy> {
    const p = await this.mustGet(orgId, id);
    const boxes = await this.boxes.withPolicy(orgId, id);
    if (boxes.length) throw conflict(`HTTP policy ${id} is attached to ${boxes.join(', ')}; detach it first.`, 'failed_precondition');
    await this.db.transaction(async () => {
      await this.boxes.releasePolicy(orgId, id);
      await this.repo.delete(orgId, id);
    });
    return p;
  }
}
