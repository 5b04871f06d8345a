import type { PolicyDocument } from '@box/contract/policies';

interface PolicyPreset {
  id: string;
  name: string;
  description: string;
  document: PolicyDocument;
}

const READ = { match: { method: ['GET', 'HEAD'] } };
const readOnly = (...hosts: string[]): PolicyDocument => Object.fromEntries(hosts.map((h) => [h, { rules: [READ] }]));

/**
 * Ready-made policies a user picks instead of writing JSON. Documents follow the normal
 * format (the spec, "HTTP policy") and are copied into a new policy when used, so
 * editing one later never changes the preset. Host patterns: `*.<domain>` is one label deep.
 */
export const POLICY_PRESETS: PolicyPreset[] = [
  {
    id: 'deny-all',
    name: 'Deny all',
    description: 'No host is reachable: every request and tunnel is refused (and logged).',
    document: {},
  },
  {
    id: 'allow-all-logged',
    name: 'Allow all, logged',
    description: 'Every host is reachable; https is intercepted so that each request is logged with its method and path.',
    document: { '*': { rules: [] } },
  },
  {
    id: 'package-registries',
    name: 'Package registries',
    description:
      'Reads (GET, HEAD) from Debian, npm, PyPI, crates.io and the Go module proxy; all of GitHub (git over https needs POST). Everything else is refused.',
    document: {
      ...readOnly('deb.debian.org', 'security.debian.org', 'registry.npmjs.org', 'pypi.org', 'files.pythonhosted.org'),
      ...readOnly('crates.io', 'index.crates.io', 'static.crates.io', 'proxy.golang.org', 'sum.golang.org', 'storage.googleapis.com'),
      'github.com': { rules: [] },
      '*.github.com': { rules: [] },
      '*.githubusercontent.com': { rules: [] },
    },
  },
  {
    id: 'local-gateway-only',
    name: 'Local inference gateway only',
    description:
      "Only the host's inference gateway (host.box.internal on the gateway's own port, paths under /v1/) is reachable; other ports of the host and everything else are refused.",
    document: { 'host.box.internal': { ports: ['gateway'], rules: [{ match: { path: { prefix: '/v1/' } } }] } },
  },
];

export const presetById = (id: string) => POLICY_PRESETS.find((p) => p.id === id);
