import type { App } from '../contract/identity.js';
import type { AppsRepo } from '../db/apps-repo.js';
import { notFound } from './domain-errors.js';

/** Apps: named groups of boxes of an organization. */
export class AppsService {
  constructor(private apps: AppsRepo) {}

  /** The app named `name`; created when missing if `mint`, else 404 naming `name`. */
  async find(orgId: string, name: string, mint: boolean): Promise<App> {
    const found = await this.apps.byName(orgId, name);
    if (found) return found;
    if (!mint) throw notFound(`No app named "${name}"; pass mint_if_missing: true to create it.`, null, 'name');
    return await this.apps.mint(orgId, name);
  }

  async exists(orgId: string, appId: string): Promise<boolean> {
    return await this.apps.exists(orgId, appId);
  }

  /** Every app with the counts and requested resources of its live boxes (disk use is the boxes area's). */
  async totals(orgId: string) {
    return await this.apps.totals(orgId);
  }
}
