import { z } from 'zod';

/** `a.example,*.corp.example`: lower-cased names. */
const hostList = z.string().transform((v) => v.split(',').map((h) => h.trim().toLowerCase()).filter(Boolean)).pipe(z.array(z.string().regex(/^(\*\.)?[a-z0-9.:_-]+$/, 'host names separated by commas (box.example.com,*.corp.example)'))); // prettier-ignore

/** The serving settings of `ENV_SETTINGS` (settings.ts): listen address, TLS, allowed Host names (listen-config.ts). */
export const SERVING_SETTINGS = {
  listen: {
    env: 'BOX_LISTEN' as const,
    schema: z.string().min(1),
    default: '`127.0.0.1`',
    meaning: 'where the headless service listens (`10.0.0.5`, `10.0.0.5:8443`); beyond loopback TLS only (`--listen`)',
  },
  allowedHosts: {
    env: 'BOX_ALLOWED_HOSTS' as const,
    schema: hostList,
    default: 'none',
    meaning: 'Host names answered besides loopback and the listen address (`--allowed-hosts`)',
  },
  tlsCert: {
    env: 'BOX_TLS_CERT' as const,
    schema: z.string().min(1),
    default: 'made',
    meaning: 'PEM certificate chain to serve HTTPS with instead of a made one (`--tls-cert`)',
  },
  tlsKey: { env: 'BOX_TLS_KEY' as const, schema: z.string().min(1), default: 'made', meaning: 'its PEM private key (`--tls-key`)' },
};
