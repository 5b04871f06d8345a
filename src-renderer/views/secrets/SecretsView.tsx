import { useState } from 'react';
import { Ago } from '../../ui/Ago.js';
import { SECRET_NAME } from '@box/contract/secrets';
import { ApiError } from '../../api/client.js';
import { useDeleteSecret, useSecretPolicies, useSecrets, useSetSecret, type SecretMeta } from '../../api/hooks/secrets.js';
import { href } from '../../app/router.js';
import { Button } from '../../ui/Button.js';
import { ConfirmButton } from '../../ui/ConfirmButton.js';
import { Empty, ErrorNotice, Loading, PageHeader } from '../../ui/states.js';
import { toast } from '../../ui/toast.js';

/**
 * Secrets: values that HTTP policies put into request headers on the way out of a box
 * (`${secrets.NAME}`); a box never sees them. The UI sets (password field), lists and
 * deletes; values are never shown, because the API never returns them.
 */
export function SecretsView() {
  const secrets = useSecrets();
  return (
    <div data-testid="view-secrets" className="space-y-4">
      <PageHeader
        title="Secrets"
        subtitle={
          <>
            Values your HTTP policies add to requests leaving a box, as <code>{'${secrets.NAME}'}</code> in a header rewrite. Boxes never see them.
          </>
        }
      />
      <SetSecretForm />
      {secrets.isPending ? (
        <Loading />
      ) : secrets.error ? (
        <ErrorNotice error={secrets.error} />
      ) : secrets.data.data.length === 0 ? (
        <Empty title="No secrets yet">Set one above, then refer to it from a policy's header rewrite.</Empty>
      ) : (
        <div className="panel overflow-x-auto">
          <table className="table" data-testid="secrets-table">
            <thead>
              <tr>
                <th>Name</th>
                <th>Used by policies</th>
                <th>Updated</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {secrets.data.data.map((s) => (
                <SecretRow key={s.name} secret={s} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

function SecretRow({ secret }: { secret: SecretMeta }) {
  const policies = useSecretPolicies(secret.name);
  const del = useDeleteSecret();
  const used = policies.data?.data ?? [];
  return (
    <tr data-testid="secret-row" data-name={secret.name}>
      <td className="font-mono">{secret.name}</td>
      <td data-testid="secret-policies">
        {policies.isPending ? (
          '…'
        ) : used.length === 0 ? (
          <span className="text-ink-400">none</span>
        ) : (
          used.map((p) => (
            <a key={p.id} href={href(['policies', p.id])} className="mr-2 text-accent-300 hover:underline">
              {p.name}
            </a>
          ))
        )}
      </td>
      <td className="whitespace-nowrap text-ink-400">
        <Ago iso={secret.updated_at} />
      </td>
      <td className="text-right">
        <ConfirmButton
          testId="secret-delete"
          busy={del.isPending}
          confirmLabel={used.length ? `Delete? ${used.length} polic${used.length === 1 ? 'y uses' : 'ies use'} it` : 'Delete?'}
          onConfirm={() => del.mutate(secret.name, { onSuccess: () => toast(`Secret ${secret.name} deleted`) })}
        >
          Delete
        </ConfirmButton>
        {del.error && <ErrorNotice error={del.error} compact />}
      </td>
    </tr>
  );
}

function SetSecretForm() {
  const set = useSetSecret();
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const nameBad = name !== '' && !SECRET_NAME.test(name);
  const err = set.error instanceof ApiError ? set.error : null;
  const submit = () => {
    if (!name || nameBad) return;
    set.mutate(
      { name, value },
      {
        onSuccess: (s) => {
          toast(`Secret ${s.name} saved`);
          setName('');
          setValue('');
        },
      },
    );
  };
  return (
    <form
      className="panel grid gap-3 p-4 md:grid-cols-[1fr_2fr_auto] md:items-end"
      data-testid="secret-form"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <div>
        <label className="label" htmlFor="secret-name">
          Name
        </label>
        <input
          id="secret-name"
          className={`input font-mono ${nameBad || err?.param === 'name' ? 'input-error' : ''}`}
          placeholder="OPENAI_API_KEY"
          value={name}
          onChange={(e) => setName(e.target.value)}
          data-testid="secret-name"
        />
        {nameBad && <p className="mt-1 text-xs text-rose-300">Letters, digits and "_", not starting with a digit.</p>}
      </div>
      <div>
        <label className="label" htmlFor="secret-value">
          Value (replaces the current one)
        </label>
        <input
          id="secret-value"
          className={`input font-mono ${err?.param === 'value' ? 'input-error' : ''}`}
          type="password"
          autoComplete="new-password"
          value={value}
          onChange={(e) => setValue(e.target.value)}
          data-testid="secret-value"
        />
      </div>
      <Button variant="primary" busy={set.isPending} disabled={!name || nameBad} onClick={submit} data-testid="secret-save">
        Save secret
      </Button>
      {set.error && (
        <div className="md:col-span-3">
          <ErrorNotice error={set.error} compact />
        </div>
      )}
    </form>
  );
}
