import type { Answer } from '@box/contract/call';
import type { BoxClient } from './client.js';
import { CliError } from './errors.js';
import type { Box } from '@box/contract/boxes';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const isId = (prefix: string, s: string) => s.startsWith(prefix) && UUID.test(s.slice(prefix.length));

/**
 * A box is named by its id or its name. A name matches the live boxes (not terminated) of
 * the organization; when several share it, the ids are listed and nothing is guessed.
 */
export async function resolveBox(client: BoxClient, ref: string): Promise<Box> {
  if (isId('box_', ref)) return client.call('GET /v1/boxes/:box_id', { params: { box_id: ref } });
  const found = (await listAll(client, 'GET /v1/boxes', { search: ref })).filter((b) => b.name === ref && b.status !== 'terminated');
  if (found.length === 1) return found[0]!;
  if (found.length === 0) throw new CliError(`no box named "${ref}" (give a name or a box_ id; see "box boxes list")`, 4);
  throw new CliError(`${found.length} boxes are named "${ref}": ${found.map((b) => b.box_id).join(', ')}; give the id`, 2);
}

export const resolveBoxId = async (client: BoxClient, ref: string) => (isId('box_', ref) ? ref : (await resolveBox(client, ref)).box_id);

/** An app by id, or by name through find (created when `create`). */
export async function resolveAppId(client: BoxClient, ref: string, create: boolean): Promise<string> {
  if (isId('app_', ref)) return ref;
  const app = await client.call('POST /v1/apps/find', { body: { name: ref, mint_if_missing: create } });
  return app.id;
}

export async function resolveVolumeId(client: BoxClient, ref: string): Promise<string> {
  if (ref.startsWith('vol_')) return ref;
  const all = await listAll(client, 'GET /v1/box-volumes');
  const v = all.find((x) => x.name === ref && x.status !== 'deleted');
  if (!v) throw new CliError(`no volume named "${ref}" (see "box volumes list")`, 4);
  return v.volume_id;
}

export async function resolvePolicyId(client: BoxClient, ref: string): Promise<string> {
  if (isId('hp_', ref)) return ref;
  const all = await listAll(client, 'GET /v1/http-policies');
  const matches = all.filter((p) => p.name === ref);
  if (matches.length === 1) return matches[0]!.id;
  if (matches.length === 0) throw new CliError(`no HTTP policy named "${ref}" (see "box policies list")`, 4);
  throw new CliError(`${matches.length} policies are named "${ref}": ${matches.map((p) => p.id).join(', ')}; give the id`, 2);
}

type Paged = 'GET /v1/boxes' | 'GET /v1/box-volumes' | 'GET /v1/http-policies' | 'GET /v1/secrets';
type Item<K extends Paged> = Answer<K> extends { data: (infer T)[] } ? T : never;

/** Every item of a paged list operation. */
export async function listAll<K extends Paged>(client: BoxClient, key: K, query: Record<string, string> = {}): Promise<Item<K>[]> {
  const out: Item<K>[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = (await client.call(key as Paged, { query: { ...query, limit: 100, offset } })) as unknown as { data: Item<K>[]; has_more: boolean };
    out.push(...page.data);
    if (!page.has_more) return out;
  }
}
