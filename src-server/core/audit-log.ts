import type { AuditRepo } from '../db/audit-repo.js';
import type { Principal } from './principal.js';

/**
 * The organization's audit log (spec: who did what, and why for an operator override).
 * Areas record through this service; only `AuditRepo` writes the table.
 */
export class AuditLog {
  constructor(private repo: AuditRepo) {}

  /** Records `action` on `target` by the calling key; `reason` is the operator's override reason, if any. */
  async record(
    auth: Principal,
    action: string,
    target: string | null,
    details: Record<string, unknown> | null = null,
    reason: string | null = null,
  ): Promise<void> {
    await this.repo.add({ org_id: auth.orgId, key_id: auth.key.id, action, target, reason, details });
  }

  /** Newest first. */
  async page(orgId: string, limit: number, offset: number) {
    return await this.repo.page(orgId, limit, offset);
  }
}
