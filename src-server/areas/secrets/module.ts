import type { AppBase } from '../../platform/app-context.js';
import type { Area } from '../../platform/area.js';
import type { PoliciesService } from '../policies/ports.js';
import { CryptoBox } from '../../kernel/util/crypto-box.js';
import { SecretsRepo } from './secrets-repo.js';
import { secretsRoutes } from './secrets-routes.js';
import { SecretsService } from './secrets-service.js';

export type { SecretsService } from './secrets-service.js';

/** Organization secrets, encrypted at rest; the API only ever shows their metadata. */
export function secretsArea(app: AppBase, deps: { policies: Pick<PoliciesService, 'referencingSecret'> }) {
  let cipher: CryptoBox | undefined;
  const secrets = new SecretsService(new SecretsRepo(app.db), () => (cipher ??= CryptoBox.forDataDir(app.config.dataDir)));
  const area: Area = { name: 'secrets', routes: (r) => secretsRoutes(r, secrets, deps.policies) };
  return { secrets, area };
}
