import { useId, useMemo, useState } from 'react';
import { ApiError } from '../../api/client.js';
import { useDeletePolicy, usePolicyPresets, useSavePolicy, type HttpPolicy } from '../../api/hooks/policies.js';
import { navigate } from '../../app/router.js';
import { Button } from '../../ui/Button.js';
import { ConfirmButton } from '../../ui/ConfirmButton.js';
import { ErrorNotice } from '../../ui/states.js';
import { JsonEditor } from './JsonEditor.js';
import { lineOfPath, resolveParamPath } from './locate-param.js';
import { RulesTable } from './RulesTable.js';
import { NEW_POLICY_DOCUMENT } from './templates.js';

/** Name + JSON document; parse errors and the API's `param` errors show at their line. */
export function PolicyEditor({ policy }: { policy: HttpPolicy | null }) {
  const docLabelId = useId();
  const [name, setName] = useState(policy?.name ?? 'new-policy');
  const [text, setText] = useState(() => JSON.stringify(policy?.document ?? NEW_POLICY_DOCUMENT, null, 2));
  const save = useSavePolicy();
  const del = useDeletePolicy();
  const [submitted, setSubmitted] = useState<string | null>(null);
  const presets = usePolicyPresets();
  const [preset, setPreset] = useState<string | null>(null);
  // A preset fills the document; it names the policy only while the name is still the default.
  const [named, setNamed] = useState(Boolean(policy));

  const parsed = useMemo(() => {
    try {
      return { doc: JSON.parse(text) as unknown, error: null };
    } catch (e) {
      const m = /position (\d+)/.exec((e as Error).message);
      const line = m ? text.slice(0, Number(m[1])).split('\n').length : null;
      return { doc: null, error: { line, message: `Not valid JSON: ${(e as Error).message}` } };
    }
  }, [text]);

  const apiErr = save.error instanceof ApiError && submitted === text ? save.error : null;
  const docError = (() => {
    if (parsed.error) return parsed.error;
    if (!apiErr?.param?.startsWith('document')) return null;
    const path = resolveParamPath(apiErr.param, parsed.doc);
    return { line: path ? lineOfPath(text, path) : null, message: apiErr.message };
  })();
  const nameError = apiErr?.param === 'name' ? apiErr.message : null;
  const otherError = save.error && !docError && !nameError ? save.error : null;

  const submit = () => {
    if (parsed.error) return;
    setSubmitted(text);
    save.mutate({ id: policy?.id, name, document: parsed.doc }, { onSuccess: (p) => !policy && navigate(['policies', p.id]) });
  };

  return (
    <form
      className="space-y-3"
      data-testid="policy-editor"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      {!policy && presets.data && (
        <fieldset className="space-y-1" data-testid="policy-presets">
          <span className="label">Start from a preset (or write the document below)</span>
          <div className="grid gap-2 sm:grid-cols-2">
            {presets.data.map((p) => (
              <button
                key={p.id}
                type="button"
                data-testid={`preset-${p.id}`}
                aria-pressed={preset === p.id}
                className={`rounded-md border px-3 py-2 text-left ${preset === p.id ? 'border-accent-400 bg-ink-800' : 'border-ink-700 hover:border-ink-500'}`}
                onClick={() => {
                  setPreset(p.id);
                  if (!named) setName(p.name);
                  setText(JSON.stringify(p.document, null, 2));
                }}
              >
                <span className="block text-sm font-semibold text-ink-100">{p.name}</span>
                <span className="block text-xs text-ink-400">{p.description}</span>
              </button>
            ))}
          </div>
        </fieldset>
      )}
      <label className="block">
        <span className="label">Name</span>
        <input
          className={`input ${nameError ? 'input-error' : ''}`}
          value={name}
          onChange={(e) => (setName(e.target.value), setNamed(true))}
          data-testid="policy-name"
        />
        {nameError && (
          <span className="mt-1 block text-xs text-rose-300" data-testid="name-error">
            {nameError}
          </span>
        )}
      </label>
      <div>
        <span className="label" id={docLabelId}>
          Document — host patterns → rules (first match wins; unmatched hosts are refused; https is intercepted unless a host says "tls": "passthrough";
          "ports": [443, "gateway"] limits a host to those ports)
        </span>
        <div className="grid gap-3 2xl:grid-cols-2">
          <JsonEditor value={text} onChange={setText} error={docError} testId="policy-document" labelledBy={docLabelId} />
          <RulesTable doc={parsed.doc} onChange={(d) => setText(JSON.stringify(d, null, 2))} />
        </div>
      </div>
      <ErrorNotice error={otherError ?? del.error} />
      <div className="flex items-center gap-2">
        <Button type="submit" variant="primary" busy={save.isPending} disabled={Boolean(parsed.error)} data-testid="policy-save">
          {policy ? 'Save' : 'Create policy'}
        </Button>
        {save.isSuccess && submitted === text && (
          <span className="text-accent-300" data-testid="policy-saved">
            Saved
          </span>
        )}
        <span className="flex-1" />
        {policy && (
          <ConfirmButton
            busy={del.isPending}
            onConfirm={() => del.mutate(policy.id, { onSuccess: () => navigate(['policies']) })}
            confirmLabel="Delete this policy?"
          >
            Delete
          </ConfirmButton>
        )}
      </div>
    </form>
  );
}
