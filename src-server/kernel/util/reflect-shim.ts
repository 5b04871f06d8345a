/**
 * @peculiar/x509 resolves its ASN.1 providers through tsyringe, which refuses to load
 * without a Reflect metadata API (normally the `reflect-metadata` package). That package
 * is not in our dependency set (and installs are frozen), and tsyringe only needs these
 * four calls for classes registered without decorators, so this is the whole of it: a
 * WeakMap per target, lookups walking the prototype chain. Import before @peculiar/x509.
 */
type Target = object;
const store = new WeakMap<Target, Map<string, Map<unknown, unknown>>>();
const own = (t: Target, prop: string | symbol | undefined, create: boolean) => {
  let byProp = store.get(t);
  if (!byProp && create) store.set(t, (byProp = new Map()));
  const k = String(prop ?? '');
  let m = byProp?.get(k);
  if (!m && create && byProp) byProp.set(k, (m = new Map()));
  return m;
};
const R = Reflect as unknown as Record<string, unknown>;
if (typeof R.getMetadata !== 'function') {
  R.defineMetadata = (key: unknown, value: unknown, t: Target, prop?: string | symbol) => void own(t, prop, true)!.set(key, value);
  R.getOwnMetadata = (key: unknown, t: Target, prop?: string | symbol) => own(t, prop, false)?.get(key);
  R.getMetadata = (key: unknown, t: Target, prop?: string | symbol) => {
    for (let o: Target | null = t; o; o = Object.getPrototypeOf(o)) {
      const m = own(o, prop, false);
      if (m?.has(key)) return m.get(key);
    }
    return undefined;
  };
  R.hasMetadata = (key: unknown, t: Target, prop?: string | symbol) => (R.getMetadata as (...a: unknown[]) => unknown)(key, t, prop) !== undefined;
  R.metadata = (key: unknown, value: unknown) => (t: Target, prop?: string | symbol) => void own(t, prop, true)!.set(key, value);
}
export {};
