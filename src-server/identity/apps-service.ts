import type { App } from '@box/contract/identity';
import type { AppsRepo } from '../platform/db/apps-repo.js';
import { notFound } from '../kernel/domain-errors.js';

/** Apps: named groups of boxes of an organization. */
export class AppsService {
  /**
   * Apps known to exist, as `org/app`: an app is never deleted nor moved to another
   * organization, so a yes stays true (a box create asks every time: one round trip less on
   * PostgreSQL). Should apps ever be deleted, that must forget them here.
   */
  private known = new Set<string>();

  constructor(private apps: AppsRepo) {}

  /** The app named `name`; created when missing if `mint`, else 404 naming `name`. */
  async find(orgId: string, name: string, mint: boolean): Promise<App> {
    const found = await this.apps.byName(orgId, name);
    if (found) return found;
    if (!mint) throw notFound(`No app named "${name}"; pass mint_if_missing: true to create it.`, null, 'name');
    return await this.apps.mint(orgId, name);
  }

  async exists(orgId: string, appId: string): Promise<boolean> {
    const key = `${orgId}/${appId}`;
    if (this.known.has(key)) return true;
    const yes = await this.apps.exists(orgId, appId);
    if (yes) this.known.add(key);
    return yes;
  }

  /** Every app with the counts and requested resources of its live boxes (disk use is the boxes area's). */
  async totals(orgId: string) {
    return await this.apps.totals(orgId);
  }
}
