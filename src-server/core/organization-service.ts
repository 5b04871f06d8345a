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
  async get(orgId: string) {
    return (await this.orgs.get(orgId))!;
  }

  /** Draws usage from the organization's credits (usage/: box time and tokens). */
  async charge(orgId: string, nanos: number): Promise<void> {
    await this.orgs.charge(orgId, nanos);
  }

  /** Renames and/or sets credits, with its audit entry, in one transaction. */
  async update(auth: Principal, patch: { name?: string; credits_usd_nanos?: number }): Promise<void> {
    await this.db.transaction(async () => {
      if (patch.credits_usd_nanos !== undefined) await this.orgs.setCredits(auth.orgId, patch.credits_usd_nanos);
      if (patch.name !== undefined) await this.orgs.rename(auth.orgId, patch.name);
      await this.audit.record(auth, 'organization.update', auth.orgId, patch);
    });
  }
}
