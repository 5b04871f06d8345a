import type { Db } from '../db/connection.js';
import type { OrgsRepo } from '../db/orgs-repo.js';
import type { AuditLog } from './audit-log.js';
import type { Principal } from './principal.js';

/** The organization record: name, credits, webhook signing secret. */
export class OrganizationService {
  constructor(
    private db: Db,
    private orgs: OrgsRepo,
    private audit: AuditLog,
  ) {}

  /** The caller's organization; it exists for as long as any of its keys authenticates. */
  get(orgId: string) {
    return this.orgs.get(orgId)!;
  }

  /** Draws usage from the organization's credits (usage/: box time and tokens). */
  charge(orgId: string, nanos: number): void {
    this.orgs.charge(orgId, nanos);
  }

  /** Renames and/or sets credits, with its audit entry, in one transaction. */
  update(auth: Principal, patch: { name?: string; credits_usd_nanos?: number }): void {
    this.db.transaction(() => {
      if (patch.credits_usd_nanos !== undefined) this.orgs.setCredits(auth.orgId, patch.credits_usd_nanos);
      if (patch.name !== undefined) this.orgs.rename(auth.orgId, patch.name);
      this.audit.record(auth, 'organization.update', auth.orgId, patch);
    })();
  }
}
