import { dispatch, parse, type Command, type Group } from '../args.js';
import { CliError } from '../errors.js';
import { json, table } from '../output.js';
import { readSecretValue } from './secrets.js';
import {
  checkContextName,
  contextsPath,
  LOCAL_CONTEXT,
  readContexts,
  selectedContext,
  writeContexts,
  type BoxContext,
} from '../../sdk/typescript/src/contexts.js';
import { normalizeFingerprint, PinMismatchError, pinnedFetch, probeCertificate } from '../../sdk/typescript/src/tls.js';

/*
 * `box context`: named services, as Docker has them (sdk/typescript/src/contexts.ts keeps
 * the file). Adding one over HTTPS pins the certificate on first contact, the way SSH does:
 * the fingerprint is shown (and asked about on a terminal) before any key is sent.
 */

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/i;

async function askYes(question: string): Promise<boolean> {
  process.stderr.write(question);
  const stdin = process.stdin;
  return new Promise((resolve) => {
    const onData = (b: Buffer) => {
      stdin.off('data', onData);
      stdin.pause();
      resolve(/^\s*y(es)?\s*$/i.test(b.toString('utf8')));
    };
    stdin.on('data', onData);
    stdin.resume();
  });
}

/** `token` of an invite link (`https://host/ui/invite?token=...`) or the bare token. */
const inviteToken = (link: string) => {
  try {
    return new URL(link).searchParams.get('token') ?? link;
  } catch {
    return link;
  }
};

async function callJson(f: typeof fetch, url: string, init: RequestInit): Promise<Record<string, unknown>> {
  let res: Response;
  try {
    res = await f(url, init);
  } catch (e) {
    if (e instanceof PinMismatchError) throw new CliError(e.message, 3);
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    throw new CliError(`cannot reach ${url} (${cause?.code ?? cause?.message ?? (e as Error).message})`);
  }
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown> & { error?: { message?: string } };
  if (!res.ok)
    throw new CliError(`${url}: ${res.status} ${body.error?.message ?? ''}`.trim(), res.status === 401 || res.status === 403 ? 3 : res.status === 404 ? 4 : 1);
  return body;
}

const add: Command = {
  usage: 'box context add <name> <url> [--key KEY | --invite LINK] [--fingerprint SHA256] [--yes]   (no --key: the key is asked for, or read from stdin)',
  summary: "Save a service as a context; over HTTPS its certificate's fingerprint is pinned on first contact",
  async run(ctx, argv) {
    const { values, positionals } = parse(
      argv,
      this.usage,
      { key: { type: 'string' }, invite: { type: 'string' }, fingerprint: { type: 'string' }, yes: { type: 'boolean', short: 'y' } },
      [2, 2],
    );
    let name: string;
    try {
      name = checkContextName(positionals[0]!);
    } catch (e) {
      throw new CliError((e as Error).message, 2);
    }
    let url: URL;
    try {
      url = new URL(positionals[1]!);
    } catch {
      throw new CliError(`"${positionals[1]}" is not a URL (e.g. https://10.0.0.5:8787)`, 2);
    }
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.test(url.hostname))) {
      throw new CliError(`${url.origin}: a service beyond this machine is reached over https:// only (plain HTTP would carry the key in clear)`, 2);
    }
    const data = readContexts();
    if (data.contexts[name]) throw new CliError(`context ${name} exists (${data.contexts[name].url}); \`npx box context rm ${name}\` first`, 5);
    const base = url.origin;
    let pin: { fingerprint: string; ca: string } | undefined;
    if (url.protocol === 'https:') {
      let peer;
      try {
        peer = await probeCertificate(base);
      } catch (e) {
        throw new CliError(`cannot reach ${base} over TLS (${(e as Error).message})`);
      }
      const expected = values.fingerprint && normalizeFingerprint(values.fingerprint);
      if (expected && expected !== normalizeFingerprint(peer.fingerprint)) {
        throw new CliError(
          `The TLS certificate of ${base} is not the one you expected: expected SHA-256 ${expected}, presented ${peer.fingerprint}. Nothing was saved and no key was sent.`,
          3,
        );
      }
      process.stderr.write(
        `The certificate of ${base} (${peer.subject}; issued by ${peer.issuer}; ${peer.trusted ? 'trusted by this system' : 'not from a CA this system trusts'})\n` +
          `has SHA-256 fingerprint ${peer.fingerprint}\n`,
      );
      if (!expected && !values.yes && process.stdin.isTTY) {
        process.stderr.write('Compare it with the one the service printed at start (or `openssl x509 -fingerprint -sha256 -in server.pem`).\n');
        if (!(await askYes('Pin it and continue (yes/no)? '))) throw new CliError('not pinned; nothing saved', 1);
      }
      pin = { fingerprint: peer.fingerprint, ca: peer.chainTop };
      process.stderr.write(`Pinned: context ${name} accepts only this certificate from now on.\n`);
    }
    const f = pin ? pinnedFetch(pin) : (...a: Parameters<typeof fetch>) => fetch(...a);
    let key = values.key?.trim();
    if (values.invite) {
      const accepted = await callJson(f, `${base}/v1/invites/accept`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token: inviteToken(values.invite) }),
      });
      key = (accepted.key as { secret: string }).secret;
      process.stderr.write(`Invite accepted: key ${(accepted.key as { id: string }).id} (${(accepted.key as { scope: string }).scope}) made for you.\n`);
    }
    if (!key) key = (await readSecretValue(`the API key of ${base}`)).trim();
    if (!key) throw new CliError('no API key (give --key, --invite, or type/pipe it in)', 2);
    const me = await callJson(f, `${base}/v1/whoami`, { headers: { authorization: `Bearer ${key}` } });
    const entry: BoxContext = {
      url: base,
      api_key: key,
      tls_fingerprint: pin?.fingerprint ?? null,
      tls_ca: pin?.ca ?? null,
      added_at: new Date().toISOString(),
    };
    const fresh = readContexts();
    fresh.contexts[name] = entry;
    writeContexts(fresh);
    if (ctx.json) return json({ name, url: base, tls_fingerprint: entry.tls_fingerprint, org_name: me.org_name, key_scope: me.key_scope });
    process.stdout.write(
      `context ${name}: ${base} (organization ${String(me.org_name)}, ${String(me.key_scope)} key); \`npx box context use ${name}\` to make it current\n`,
    );
  },
};

const use: Command = {
  usage: `box context use <name|${LOCAL_CONTEXT}>`,
  summary: `Make a context current (${LOCAL_CONTEXT}: the service of this machine)`,
  async run(ctx, argv) {
    const { positionals } = parse(argv, this.usage, {}, [1, 1]);
    const name = positionals[0]!;
    const data = readContexts();
    if (name !== LOCAL_CONTEXT && !data.contexts[name]) {
      throw new CliError(`no context ${name} (known: ${[LOCAL_CONTEXT, ...Object.keys(data.contexts)].join(', ')})`, 4);
    }
    data.current = name === LOCAL_CONTEXT ? null : name;
    writeContexts(data);
    if (process.env.BOX_CONTEXT) process.stderr.write(`note: BOX_CONTEXT=${process.env.BOX_CONTEXT} is set and wins over the current context\n`);
    if (ctx.json) return json({ current: name });
    process.stdout.write(`current context: ${name}${name === LOCAL_CONTEXT ? '' : ` (${data.contexts[name]!.url})`}\n`);
  },
};

const ls: Command = {
  usage: 'box context ls',
  summary: 'Saved contexts; * marks the one in use',
  async run(ctx, argv) {
    parse(argv, this.usage, {});
    const data = readContexts();
    let inUse: string = LOCAL_CONTEXT;
    try {
      inUse = selectedContext()?.name ?? LOCAL_CONTEXT;
    } catch (e) {
      process.stderr.write(`${(e as Error).message}\n`);
    }
    const rows = [
      { name: LOCAL_CONTEXT, url: 'this machine (endpoint.json, BOX_URL)', tls_fingerprint: null as string | null },
      ...Object.entries(data.contexts).map(([name, c]) => ({ name, url: c.url, tls_fingerprint: c.tls_fingerprint })),
    ];
    if (ctx.json) return json({ current: inUse, file: contextsPath(), contexts: rows });
    table(
      ['', 'name', 'url', 'certificate (SHA-256)'],
      rows.map((r) => [r.name === inUse ? '*' : '', r.name, r.url, r.tls_fingerprint ? `${r.tls_fingerprint.slice(0, 23)}…` : '-']),
    );
  },
};

const rm: Command = {
  usage: 'box context rm <name>',
  summary: 'Forget a context (its key and pinned certificate)',
  async run(ctx, argv) {
    const { positionals } = parse(argv, this.usage, {}, [1, 1]);
    const name = positionals[0]!;
    const data = readContexts();
    if (!data.contexts[name]) throw new CliError(`no context ${name}`, 4);
    delete data.contexts[name];
    if (data.current === name) data.current = null;
    writeContexts(data);
    if (ctx.json) return json({ removed: name });
    process.stdout.write(`removed context ${name}${data.current === null ? '; current: local' : ''}\n`);
  },
};

const group: Group = { add, use, ls, rm };

export const context: Command = {
  usage: 'box context add|use|ls|rm',
  summary: 'Services to talk to (contexts): local, or a saved remote one (BOX_CONTEXT overrides the current)',
  group,
  run: (ctx, argv) => dispatch(ctx, group, 'box context', argv),
};

const inviteCreate: Command = {
  usage: 'box invite <member name> [--scope user|organization] [--ttl-hours N]',
  summary: 'Invite a member: prints a one-time link that yields their own key (organization keys only)',
  async run(ctx, argv) {
    const { values, positionals } = parse(
      argv,
      this.usage,
      { scope: { type: 'string', default: 'user' }, 'ttl-hours': { type: 'string', default: '72' } },
      [1, 1],
    );
    if (!['organization', 'user'].includes(values.scope!)) throw new CliError('--scope must be user or organization', 2);
    const ttl = Number(values['ttl-hours']);
    if (!Number.isInteger(ttl) || ttl < 1 || ttl > 720) throw new CliError('--ttl-hours must be a whole number of hours, 1-720', 2);
    const inv = await ctx.client.call('POST /v1/invites', { body: { name: positionals[0]!, scope: values.scope as 'user' | 'organization', ttl_hours: ttl } });
    if (ctx.json) return json(inv);
    process.stderr.write(`invite ${inv.invite_id} for ${inv.name} (${inv.scope} key), valid once, until ${inv.expires_at}:\n`);
    process.stdout.write(`${inv.url}\n`);
    process.stderr.write(`They open it in a browser, or run: npx box context add NAME ${ctx.config.url} --invite '${inv.url}'\n`);
  },
};

export { inviteCreate as invite };
