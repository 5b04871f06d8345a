import type { AppBase } from '../app-context.js';
import { newId } from '../contract/common.js';
import type { HttpPolicy, PolicyDocument } from '../contract/policies.js';
import { conflict, notFound } from '../core/domain-errors.js';
import { evaluate, type EgressRequest, type Verdict } from './evaluate.js';
import { PoliciesRepo } from './policies-repo.js';
import type { BoxPolicyLinks } from '../boxes/ports.js';

export interface PoliciesService {
  get(orgId: string, id: string): HttpPolicy | undefined;
  /** Pure policy evaluation for the egress proxy (see evaluate.ts for the rules). */
  evaluate(document: PolicyDocument, req: EgressRequest): Verdict;
  /** Policies whose header rewrites refer to `${secrets.<name>}`. */
  referencingSecret(orgId: string, name: string): HttpPolicy[];
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

  get(orgId: string, id: string) {
    return this.repo.get(orgId, id);
  }

  /** One page of the organization's policies, oldest first. */
  list(orgId: string, limit: number, offset: number) {
    return this.repo.list(orgId, limit, offset);
  }

  evaluate(document: PolicyDocument, req: EgressRequest) {
    return evaluate(document, req);
  }

  referencingSecret(orgId: string, name: string) {
    return this.repo.referencingSecret(orgId, name);
  }

  mustGet(orgId: string, id: string, param = 'id'): HttpPolicy {
    const p = this.repo.get(orgId, id);
    if (!p) throw notFound(`No HTTP policy ${id} in this organization.`, null, param);
    return p;
  }

  create(orgId: string, name: string, document: PolicyDocument): HttpPolicy {
    const at = new Date().toISOString();
    const p: HttpPolicy = { id: newId('httpPolicy'), org_id: orgId, name, document, created_at: at, updated_at: at };
    this.repo.insert(p);
    return p;
  }

  update(orgId: string, id: string, name?: string, document?: PolicyDocument): HttpPolicy {
    this.mustGet(orgId, id);
    this.repo.update(orgId, id, name, document, new Date().toISOString());
    return this.repo.get(orgId, id)!;
  }

  /** 409 while a live box has it attached; terminated boxes that still name it let go of it first (foreign key). */
  delete(orgId: string, id: string): HttpPolicy {
    const p = this.mustGet(orgId, id);
    const boxes = this.boxes.withPolicy(orgId, id);
    if (boxes.length) throw conflict(`HTTP policy ${id} is attached to ${boxes.join(', ')}; detach it first.`, 'failed_precondition');
    this.db.transaction(() => {
      this.boxes.releasePolicy(orgId, id);
      this.repo.delete(orgId, id);
    })();
    return p;
  }
}
