import type { Db } from './connection.js';
import { AppsRepo } from './apps-repo.js';
import { AuditRepo } from './audit-repo.js';
import { IdempotencyRepo } from './idempotency-repo.js';
import { KeysRepo } from './keys-repo.js';
import { OrgsRepo } from './orgs-repo.js';
import { SessionsRepo } from './sessions-repo.js';

/** The core repositories; each area adds its own next to its domain code. */
export interface Repos {
  orgs: OrgsRepo;
  keys: KeysRepo;
  sessions: SessionsRepo;
  idempotency: IdempotencyRepo;
  audit: AuditRepo;
  apps: AppsRepo;
}

export function makeRepos(db: Db): Repos {
  return {
    orgs: new OrgsRepo(db),
    keys: new KeysRepo(db),
    sessions: new SessionsRepo(db),
    idempotency: new IdempotencyRepo(db),
    audit: new AuditRepo(db),
    apps: new AppsRepo(db),
  };
}
