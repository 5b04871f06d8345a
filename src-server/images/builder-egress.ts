/**
 * The builder box's way out: the same egress proxy boxes get (network/egress), with a
 * policy that allows package registries only, unless the caller passes another one.
 * The machine's configured Debian mirror (the host's apt sources, as the guest image
 * build reads them) is allowed too, so `apt-get` works where only that mirror is reachable.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { PolicyDocument } from '../contract/policies.js';
import { BoxProxy } from '../network/ports.js';
import { RECIPE_DIR } from '../runtime/module.js';

const execFileP = promisify(execFile);
const allow = { rules: [{}] };

const PACKAGE_REGISTRIES = [
  'deb.debian.org',
  '*.debian.org',
  'security.debian.org',
  'archive.ubuntu.com',
  'security.ubuntu.com',
  'dl-cdn.alpinelinux.org',
  'registry.npmjs.org',
  'pypi.org',
  'files.pythonhosted.org',
  'proxy.golang.org',
  'sum.golang.org',
  'crates.io',
  'index.crates.io',
  'static.crates.io',
  'rubygems.org',
  'repo.maven.apache.org',
];

/** Host of the Debian mirror in this machine's apt sources, or undefined. */
async function hostDebianMirror(): Promise<string | undefined> {
  try {
    const { stdout } = await execFileP('bash', ['-c', `source "${join(RECIPE_DIR, 'common.sh')}"; debian_mirror`]);
    return new URL(stdout.trim()).hostname;
  } catch {
    return undefined;
  }
}

export async function packageRegistriesPolicy(): Promise<PolicyDocument> {
  const hosts = [...PACKAGE_REGISTRIES];
  const mirror = await hostDebianMirror();
  if (mirror) hosts.push(mirror);
  return Object.fromEntries(hosts.map((h) => [h, allow]));
}

/** Starts a proxy for one builder box; `onDenied` hears every refused request (shown in the build output). */
export async function startBuilderProxy(policy: PolicyDocument, onDenied: (host: string) => void): Promise<BoxProxy> {
  const proxy = new BoxProxy({
    policyFor: () => Promise.resolve({ id: 'builder', name: 'builder (package registries)', document: policy }),
    secretFor: () => Promise.resolve(undefined),
    log: {
      add: (_box, e) => {
        if (e.verdict === 'deny') onDenied(`${e.host}:${e.port}`);
        return 0;
      },
      finish: () => {},
    },
  });
  await proxy.listen(0);
  proxy.boxId = 'builder';
  return proxy;
}
