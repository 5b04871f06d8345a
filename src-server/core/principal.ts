import type { ApiKeyRow } from '../db/keys-repo.js';

/** Who is acting: the API key (or UI session, or box) a request was authenticated as (http/auth.ts). */
export interface Principal {
  key: ApiKeyRow;
  orgId: string;
  via: 'bearer' | 'session' | 'box';
  /** Set when a box calls the inference API through its egress proxy (inference/box/box-principal.ts). */
  box?: { id: string };
}
