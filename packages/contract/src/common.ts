import { z } from 'zod';

const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';

/** Id pattern for a prefix followed by a UUID (the spec, "Identifiers"). */
const prefixedUuid = (prefix: string) => new RegExp(`^${prefix}${UUID}$`);

const ID_PREFIX = {
  box: 'box_',
  checkpoint: 'boxcp_',
  app: 'app_',
  volume: 'vol_',
  httpPolicy: 'hp_',
  exec: 'exec_',
  cron: 'cron_',
  apiKey: 'key_',
} as const;
type IdKind = keyof typeof ID_PREFIX;

export const newId = (kind: IdKind) => `${ID_PREFIX[kind]}${crypto.randomUUID()}`;

export const idSchema = (kind: IdKind, label: string) =>
  z.string().regex(prefixedUuid(ID_PREFIX[kind]), `${label} must be "${ID_PREFIX[kind]}" followed by a UUID`);

/** Query integers arrive as strings; accept only plain decimal digits. */
export const queryInt = (min: number, max: number, def: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be an integer')
    .transform(Number)
    .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`))
    .optional()
    .transform((v) => v ?? def);

export const PageQuery = z.object({
  limit: queryInt(1, 100, 50),
  offset: queryInt(0, 100000, 0),
});
export type PageQuery = z.infer<typeof PageQuery>;

interface Page<T> {
  data: T[];
  limit: number;
  offset: number;
  total: number;
  has_more: boolean;
}

/** The schema of one page of `item`s (the `Page<T>` shape). */
export const pageOf = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), limit: z.number().int(), offset: z.number().int(), total: z.number().int(), has_more: z.boolean() });

/** `{data: [...]}`: an unpaged list. */
export const listOf = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item) });

export const page = <T>(data: T[], q: PageQuery, total: number): Page<T> => ({
  data,
  limit: q.limit,
  offset: q.offset,
  total,
  has_more: q.offset + data.length < total,
});

/** Printable ASCII only (spec: operator override reason). */
export const PRINTABLE_ASCII = /^[ -~]*$/;
