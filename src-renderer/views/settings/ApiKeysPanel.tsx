import { useState } from 'react';
import { Ago } from '../../ui/Ago.js';
import { useApiKeys, useCreateApiKey, useRevokeApiKey } from '../../api/hooks/identity.js';
import { Button } from '../../ui/Button.js';
import { ConfirmButton } from '../../ui/ConfirmButton.js';
import { Dialog } from '../../ui/Dialog.js';
import { ErrorNotice, Loading } from '../../ui/states.js';
import { Mono } from '../../ui/StatusPill.js';

export function ApiKeysPanel() {
  const keys = useApiKeys();
  const revoke = useRevokeApiKey();
  const [creating, setCreating] = useState(false);
  return (
    <section className="panel p-4" data-testid="api-keys">
      <div className="mb-3 flex items-center justify-between">
        <h2 className="font-semibold">API keys</h2>
        <Button variant="primary" small onClick={() => setCreating(true)} data-testid="create-key">
          New key
        </Button>
      </div>
      <ErrorNotice error={keys.error ?? revoke.error} />
      {keys.isPending ? (
        <Loading />
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th>Name</th>
              <th>Key</th>
              <th>Scope</th>
              <th>Last used</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {keys.data?.data.map((k) => (
              <tr key={k.id} data-testid="api-key-row">
                <td>{k.name}</td>
                <td>
                  <Mono>{`${k.prefix}…`}</Mono>
                </td>
                <td>{k.scope}</td>
                <td className="text-ink-400">
                  <Ago iso={k.last_used_at} />
                </td>
                <td className="text-right">
                  {k.name !== 'desktop-ui' && (
                    <ConfirmButton busy={revoke.isPending && revoke.variables === k.id} onConfirm={() => revoke.mutate(k.id)} confirmLabel="Revoke it?">
                      Revoke
                    </ConfirmButton>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {creating && <CreateKeyDialog onClose={() => setCreating(false)} />}
    </section>
  );
}

function CreateKeyDialog({ onClose }: { onClose: () => void }) {
  const create = useCreateApiKey();
  const [name, setName] = useState('');
  const [scope, setScope] = useState<'organization' | 'user'>('organization');
  const [copied, setCopied] = useState(false);
  const secret = create.data?.secret;
  return (
    <Dialog
      title={secret ? 'Key created' : 'New API key'}
      onClose={onClose}
      testId="create-key-dialog"
      footer={
        secret ? (
          <Button variant="primary" onClick={onClose}>
            Done
          </Button>
        ) : (
          <>
            <Button onClick={onClose}>Cancel</Button>
            <Button
              variant="primary"
              busy={create.isPending}
              disabled={!name.trim()}
              onClick={() => create.mutate({ name: name.trim(), scope })}
              data-testid="create-key-submit"
            >
              Create
            </Button>
          </>
        )
      }
    >
      {secret ? (
        <div className="space-y-3">
          <p className="text-ink-300">This is the only time the secret is shown. Store it now.</p>
          <div className="flex gap-2">
            <input readOnly className="input font-mono" value={secret} data-testid="new-key-secret" onFocus={(e) => e.currentTarget.select()} />
            <Button
              onClick={() => {
                void navigator.clipboard?.writeText(secret).then(() => setCopied(true));
              }}
            >
              {copied ? 'Copied' : 'Copy'}
            </Button>
          </div>
        </div>
      ) : (
        <form
          className="space-y-3"
          onSubmit={(e) => {
            e.preventDefault();
            if (name.trim()) create.mutate({ name: name.trim(), scope });
          }}
        >
          <label className="block">
            <span className="label">Name</span>
            <input
              className="input"
              value={name}
              onChange={(e) => setName(e.target.value)}
              placeholder="ci-runner"
              data-testid="key-name"
              autoFocus
              data-autofocus
            />
          </label>
          <label className="block">
            <span className="label">Scope</span>
            <select className="input" value={scope} onChange={(e) => setScope(e.target.value as 'organization' | 'user')}>
              <option value="organization">organization — box API and inference</option>
              <option value="user">user — inference only</option>
            </select>
          </label>
          <ErrorNotice error={create.error} />
        </form>
      )}
    </Dialog>
  );
}
