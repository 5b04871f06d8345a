import { useState } from 'react';
import { ApiError } from '../../api/client.js';
import { useIssueCertificate, useSshCa } from '../../api/hooks/secrets.js';
import { Button } from '../../ui/Button.js';
import { CopyBlock } from '../../ui/CopyBlock.js';
import { formatTime } from '../../ui/format.js';
import { ErrorNotice, Loading, PageHeader } from '../../ui/states.js';

const SSH_LINES = [
  'npx box ssh enable <box>     # installs and starts sshd in the box, trusting the CA',
  'npx box ssh cert             # a certificate for ~/.ssh/id_ed25519, written next to it',
  'npx box ssh connect <box>    # ssh to the port the box publishes',
].join('\n');

/**
 * SSH: the organization's CA (boxes with SSH enabled trust it), certificates for a pasted
 * public key, and the CLI lines that turn SSH on in a box and connect.
 */
export function SshView() {
  const ca = useSshCa();
  return (
    <div data-testid="view-ssh" className="space-y-4">
      <PageHeader title="SSH" subtitle="Log in to boxes with short-lived certificates signed by your organization's CA, no passwords or per-box keys." />
      <section className="panel p-4" data-testid="ssh-ca">
        <h2 className="mb-1 font-semibold">Certificate authority</h2>
        <p className="mb-2 text-ink-400">
          Boxes with SSH enabled trust this public key. Put it in a known_hosts or TrustedUserCAKeys file elsewhere if you want the same trust there.
        </p>
        {ca.isPending ? <Loading /> : ca.error ? <ErrorNotice error={ca.error} /> : <CopyBlock text={ca.data.public_key} testId="ssh-ca-key" wrap />}
      </section>
      <IssueCertificate />
      <section className="panel p-4" data-testid="ssh-howto">
        <h2 className="mb-1 font-semibold">Enable SSH in a box (CLI)</h2>
        <p className="mb-2 text-ink-400">SSH is switched on per box from the CLI: it installs the server in the box, trusts the CA and publishes a port.</p>
        <CopyBlock text={SSH_LINES} wrap />
      </section>
    </div>
  );
}

function IssueCertificate() {
  const issue = useIssueCertificate();
  const [key, setKey] = useState('');
  const [principals, setPrincipals] = useState('root');
  const [hours, setHours] = useState('1');
  const err = issue.error instanceof ApiError ? issue.error : null;
  const submit = () =>
    issue.mutate({
      public_key: key.trim(),
      principals: principals.split(/[\s,]+/).filter(Boolean),
      ttl_seconds: Math.round(Number(hours) * 3600) || undefined,
    });
  return (
    <section className="panel space-y-3 p-4" data-testid="ssh-issue">
      <h2 className="font-semibold">Issue a certificate</h2>
      <div>
        <label className="label" htmlFor="ssh-pubkey">
          Your public key (one line of ~/.ssh/id_ed25519.pub)
        </label>
        <textarea
          id="ssh-pubkey"
          rows={3}
          className={`input font-mono text-xs ${err?.param === 'public_key' ? 'input-error' : ''}`}
          placeholder="ssh-ed25519 AAAA… you@host"
          value={key}
          onChange={(e) => setKey(e.target.value)}
          data-testid="ssh-pubkey"
        />
      </div>
      <div className="grid gap-3 sm:grid-cols-2">
        <div>
          <label className="label" htmlFor="ssh-principals">
            Log in as (users)
          </label>
          <input
            id="ssh-principals"
            className={`input font-mono ${err?.param?.startsWith('principals') ? 'input-error' : ''}`}
            value={principals}
            onChange={(e) => setPrincipals(e.target.value)}
          />
        </div>
        <div>
          <label className="label" htmlFor="ssh-hours">
            Valid for (hours, up to 168)
          </label>
          <input
            id="ssh-hours"
            className={`input ${err?.param === 'ttl_seconds' ? 'input-error' : ''}`}
            inputMode="decimal"
            value={hours}
            onChange={(e) => setHours(e.target.value)}
          />
        </div>
      </div>
      <Button variant="primary" busy={issue.isPending} disabled={!key.trim()} onClick={submit} data-testid="ssh-issue-submit">
        Issue certificate
      </Button>
      {issue.error && <ErrorNotice error={issue.error} />}
      {issue.data && (
        <div data-testid="ssh-cert">
          <p className="mb-1 text-ink-300">
            Save it next to your key as <code>~/.ssh/id_ed25519-cert.pub</code>. Valid until {formatTime(issue.data.valid_before)} (key id{' '}
            <code>{issue.data.key_id}</code>).
          </p>
          <CopyBlock text={issue.data.certificate} testId="ssh-cert-text" wrap />
        </div>
      )}
    </section>
  );
}
