import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { dispatch, intArg, parse, splitDashDash, type Command, type Ctx, type Group } from '../args.js';
import { ApiFailure, CliError } from '../errors.js';
import { fields, json } from '../output.js';
import { resolveBox } from '../resolve.js';
import { certSecondsLeft, keyFiles, knownHostsFile, pinHostKey, readPublicKey, shq, type KeyFiles } from '../ssh-files.js';
import type { Answer } from '@box/contract/call';
import { enableSsh, fetchHostKey } from './ssh-enable.js';

/** Asks the org CA for a user certificate of `k.pub` and writes it to `k.cert`. */
async function issueCert(ctx: Ctx, k: KeyFiles, principals: string[], ttl?: number) {
  const res = await ctx.client.call('POST /v1/ssh/certificate', { body: { public_key: readPublicKey(k), principals, ttl_seconds: ttl } });
  fs.writeFileSync(k.cert, `${res.certificate.trim()}\n`, { mode: 0o644 });
  return res;
}

/** The loopback address of a box's published port 22, or a clear error. */
async function sshEndpoint(ctx: Ctx, boxId: string): Promise<{ host: string; port: number }> {
  let res: Answer<'GET /v1/boxes/:box_id/listeners'>;
  try {
    res = await ctx.client.call('GET /v1/boxes/:box_id/listeners', { params: { box_id: boxId } });
  } catch (e) {
    if (e instanceof ApiFailure && e.code === 'unknown_route')
      throw new CliError('this service cannot publish ports yet (no /v1/boxes/{id}/listeners endpoint), so SSH is not reachable from the host');
    throw e;
  }
  const l = res.data.find((x) => x.guest_port === 22 && x.protocol === 'tcp');
  if (!l?.public_port) throw new CliError(`port 22 of ${boxId} is not published: run "box ssh enable ${boxId}" first`, 4);
  return { host: l.public_host ?? '127.0.0.1', port: l.public_port };
}

const group: Group = {
  ca: {
    usage: 'box ssh ca',
    summary: "The organization's SSH certificate authority (public key)",
    async run(ctx, argv) {
      parse(argv, this.usage, {});
      const ca = await ctx.client.call('GET /v1/ssh/ca');
      if (ctx.json) json(ca);
      else process.stdout.write(`${ca.public_key.trim()}\n`);
    },
  },
  enable: {
    usage: 'box ssh enable <box>',
    summary: 'Trust the org CA in the box, start sshd and publish port 22 (CLI only)',
    async run(ctx, argv) {
      const { positionals } = parse(argv, this.usage, {}, [1, 1]);
      const res = await enableSsh(ctx, await resolveBox(ctx.client, positionals[0]!));
      if (ctx.json) return json(res);
      process.stdout.write(
        `ssh enabled in ${res.box_id}; port 22 is published at ${res.host}:${res.port}\nnext: box ssh cert && box ssh connect ${positionals[0]}\n`,
      );
    },
  },
  cert: {
    usage: 'box ssh cert [--key ~/.ssh/id_ed25519] [--principal root]... [--ttl seconds]',
    summary: 'Have the org CA sign your public key; writes <key>-cert.pub',
    async run(ctx, argv) {
      const { values } = parse(argv, this.usage, { key: { type: 'string' }, principal: { type: 'string', multiple: true }, ttl: { type: 'string' } });
      const k = keyFiles(values.key);
      const res = await issueCert(ctx, k, values.principal ?? ['root'], intArg(values.ttl, 'ttl', 60));
      if (ctx.json) return json({ ...res, file: k.cert });
      fields({ certificate_file: k.cert, key_id: res.key_id, valid_before: res.valid_before });
    },
  },
  connect: {
    usage: 'box ssh connect <box> [--key ~/.ssh/id_ed25519] [--user root] [--print] [-- <remote command>]',
    summary: 'ssh into a box with your certificate (issued or renewed when needed); prints the command',
    async run(ctx, argv) {
      const [head, remote] = splitDashDash(argv);
      const { values, positionals } = parse(
        head,
        this.usage,
        { key: { type: 'string' }, user: { type: 'string', default: 'root' }, print: { type: 'boolean' } },
        [1, 1],
      );
      const box = await resolveBox(ctx.client, positionals[0]!);
      const { host, port } = await sshEndpoint(ctx, box.box_id);
      const k = keyFiles(values.key);
      if (certSecondsLeft(k) < 60) {
        await issueCert(ctx, k, [values.user!]);
        process.stderr.write(`issued a certificate: ${k.cert}\n`);
      }
      const known = knownHostsFile(ctx.config);
      const hostKey = await fetchHostKey(ctx, box.box_id).catch(() => undefined);
      if (hostKey) pinHostKey(known, box.box_id, hostKey);
      const args = [
        '-p',
        String(port),
        '-i',
        k.key,
        '-o',
        `CertificateFile=${k.cert}`,
        '-o',
        'IdentitiesOnly=yes',
        '-o',
        `HostKeyAlias=${box.box_id}`,
        '-o',
        `UserKnownHostsFile=${known}`,
        '-o',
        `StrictHostKeyChecking=${hostKey ? 'yes' : 'accept-new'}`,
        ...(process.stdin.isTTY ? [] : ['-o', 'BatchMode=yes']),
        `${values.user}@${host}`,
        ...(remote ?? []),
      ];
      process.stderr.write(`${['ssh', ...args].map(shq).join(' ')}\n`);
      if (values.print) return 0;
      return new Promise<number>((resolve, reject) => {
        const child = spawn('ssh', args, { stdio: 'inherit' });
        child.on('error', (e) => reject(new CliError(`cannot run ssh: ${e.message} (install openssh-client)`)));
        child.on('exit', (code, sig) => resolve(code ?? (sig ? 128 + 1 : 1)));
      });
    },
  },
};

export const ssh: Command = {
  usage: 'box ssh ca|enable|cert|connect',
  summary: 'SSH into boxes with certificates of the org CA',
  group,
  run: (ctx, argv) => dispatch(ctx, group, 'box ssh', argv),
};
