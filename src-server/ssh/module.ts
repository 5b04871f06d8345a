import type { AppBase } from '../app-context.js';
import type { Area } from '../area.js';
import { SshCa } from './ca.js';
import { sshRoutes } from './ssh-routes.js';

export interface SshService {
  /** The org CA's public key (OpenSSH line) that boxes trust once SSH is turned on in them. */
  caPublicKey(orgId: string): Promise<string>;
}

/** SSH trust: the organization's certificate authority and user certificates it signs. */
export function sshArea(app: AppBase) {
  const ca = new SshCa(app);
  const ssh: SshService = { caPublicKey: async (orgId) => await ca.publicKey(orgId) };
  const area: Area = { name: 'ssh', routes: (r) => sshRoutes(r, ca) };
  return { ssh, area };
}
