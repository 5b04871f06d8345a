import { z } from 'zod';

/** Secret names read like environment variable names. */
export const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const SECRET_VALUE_MAX_BYTES = 64 * 1024;

export const SecretNameParams = z.object({
  name: z.string().regex(SECRET_NAME, 'must start with a letter or "_" and hold up to 128 letters, digits or "_"'),
});

export const PutSecretBody = z.strictObject({
  value: z
    .string()
    .refine((v) => new TextEncoder().encode(v).length <= SECRET_VALUE_MAX_BYTES, `must be at most ${SECRET_VALUE_MAX_BYTES} bytes (64 KiB) in UTF-8`),
});

/** What the API tells about a secret: never its value. */
export const SecretMeta = z.object({ name: z.string(), created_at: z.string(), updated_at: z.string() });
export type SecretMeta = z.infer<typeof SecretMeta>;
