/** An API key as stored (platform/db/keys-repo.ts), without its secret. */
export interface ApiKeyRow {
  id: string;
  org_id: string;
  name: string;
  scope: 'organization' | 'user';
  user_id: string | null;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** Who is acting: the API key (or UI session, or box) a request was authenticated as (http/auth.ts). */
export interface Principal {
  key: ApiKeyRow;
  orgId: string;
  via: 'bearer' | 'session' | 'box';
  /** Set when a box calls the inference API through its egress proxy (inference/box/box-principal.ts). */
  box?: { id: string };
}
