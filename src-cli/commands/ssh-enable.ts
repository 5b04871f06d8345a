import type { Ctx } from '../args.js';
import { seg } from '../client.js';
import { ApiFailure, CliError } from '../errors.js';
import { runExec } from '../exec-stream.js';
import type { Box } from '@box/contract/boxes';
import type { Listener } from '@box/contract/network';

const CA_PATH = '/etc/ssh/box_ca.pub';
const DROP_IN_PATH = '/etc/ssh/sshd_config.d/box-ca.conf';
const HOST_KEY_PATH = '/etc/ssh/ssh_host_ed25519_key.pub';

/**
 * Runs in the box as root: makes sshd read the drop-in (Debian's config includes
 * sshd_config.d; an older config gets the Include line at the top, where it takes effect),
 * creates missing host keys, checks the config, then starts sshd, or reloads a running one
 * (SIGHUP: it re-executes itself), and answers once port 22 is listening again.
 */
const SETUP_SCRIPT = `set -e
grep -qE '^[[:space:]]*Include[[:space:]]+/etc/ssh/sshd_config.d/\\*\\.conf' /etc/ssh/sshd_config || sed -i '1i Include /etc/ssh/sshd_config.d/*.conf' /etc/ssh/sshd_config
ssh-keygen -A >/dev/null
mkdir -p /run/sshd && chmod 0755 /run/sshd
/usr/sbin/sshd -t
if [ -s /run/sshd.pid ] && kill -0 "$(cat /run/sshd.pid)" 2>/dev/null; then
  kill -HUP "$(cat /run/sshd.pid)"; how=reloaded; sleep 0.5
else
  /usr/sbin/sshd -E /var/log/box-sshd.log; how=started
fi
i=0; until ss -Hltn 'sport = :22' | grep -q .; do i=$((i+1)); [ $i -lt 100 ] || { echo 'sshd is not listening on port 22' >&2; tail -5 /var/log/box-sshd.log >&2; exit 1; }; sleep 0.1; done
echo $how`;

async function putFile(ctx: Ctx, boxId: string, path: string, content: string) {
  await ctx.client.request('PUT', `/v1/boxes/${seg(boxId)}/files`, {
    query: { path, mode: '0644' },
    body: content,
    headers: { 'content-type': 'application/octet-stream' },
  });
}

/** The box's ed25519 host public key, read over the files API (authenticated, so it can be pinned). */
export async function fetchHostKey(ctx: Ctx, boxId: string): Promise<string> {
  const res = await ctx.client.raw('GET', `/v1/boxes/${seg(boxId)}/files`, { query: { path: HOST_KEY_PATH } });
  return (await res.text()).trim();
}

async function sh(ctx: Ctx, boxId: string, script: string) {
  let out = '';
  const o = await runExec(ctx.client, boxId, { command: script, timeout: 120 }, { onOutput: (_s, d) => (out += d.toString()) });
  if (o.returnCode !== 0) throw new CliError(`setting up sshd in ${boxId} failed (exit ${o.returnCode ?? o.status}):\n${out.trim()}`);
  return out;
}

/** Publishes guest port 22 as tcp; an existing tcp listener on 22 is reused. */
async function publish22(ctx: Ctx, boxId: string): Promise<Listener> {
  const base = `/v1/boxes/${boxId}/listeners`;
  const params = { box_id: boxId };
  try {
    return await ctx.client.call('POST /v1/boxes/:box_id/listeners', { params, body: { guest_port: 22, protocol: 'tcp' } });
  } catch (e) {
    if (!(e instanceof ApiFailure)) throw e;
    if (e.code === 'unknown_route') {
      throw new CliError(`sshd runs in ${boxId}, but this service cannot publish ports yet (POST ${base} is not served), so it is not reachable from the host`);
    }
    if (e.status !== 409) throw e;
    const existing = (await ctx.client.call('GET /v1/boxes/:box_id/listeners', { params })).data.find((l) => l.guest_port === 22);
    if (existing?.protocol === 'tcp') return existing;
    throw e;
  }
}

/** `box ssh enable`: the steps of spec item 6 that only an SDK or the CLI performs. */
export async function enableSsh(ctx: Ctx, box: Box) {
  if (box.status === 'terminated' || box.status === 'failed') throw new CliError(`${box.box_id} is ${box.status}`, 5);
  const ca = await ctx.client.call('GET /v1/ssh/ca');
  await putFile(ctx, box.box_id, CA_PATH, `${ca.public_key.trim()}\n`);
  await putFile(
    ctx,
    box.box_id,
    DROP_IN_PATH,
    `# Written by "box ssh enable": users with a certificate of the organization CA may log in.\nTrustedUserCAKeys ${CA_PATH}\n`,
  );
  const how = (await sh(ctx, box.box_id, SETUP_SCRIPT)).trim().split('\n').pop();
  const listener = await publish22(ctx, box.box_id);
  if (!listener.public_port) throw new CliError(`port 22 was published but has no host port yet (route status ${listener.route_status})`);
  return { box_id: box.box_id, sshd: how, host: listener.public_host ?? '127.0.0.1', port: listener.public_port, listener };
}
