import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiError, errorMessage } from '../api/client.js';
import { Button } from '../ui/Button.js';
import { navigate } from './router.js';

const REASONS: Record<string, string> = {
  link: 'That sign-in link was already used or is older than 10 minutes (each link works once).',
  expired: 'Your session ended.',
};

/**
 * Shown when the service answers 401 (no or expired session) and at `#/signin`: plain
 * words, two ways back in (a new link from the CLI, or the API key pasted here).
 */
export function SignIn({ reason }: { reason?: string }) {
  const qc = useQueryClient();
  const [key, setKey] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async () => {
    setBusy(true);
    setError(null);
    try {
      const res = await fetch('/ui/session', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ api_key: key }),
        credentials: 'same-origin',
      });
      if (!res.ok) throw await ApiError.from(res);
      await qc.resetQueries();
      navigate(['boxes']);
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="grid min-h-full place-items-center p-6" data-testid="signed-out">
      <form
        className="panel w-full max-w-md space-y-4 p-6"
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <div>
          <h1 className="text-base font-semibold">Sign in to Box Desktop</h1>
          <p className="mt-1 text-ink-300" data-testid="signin-reason">
            {REASONS[reason ?? ''] ?? 'This browser is not signed in to the local service.'}
          </p>
        </div>
        <div>
          <label className="label" htmlFor="signin-key">
            API key
          </label>
          <input
            id="signin-key"
            className={`input font-mono ${error ? 'input-error' : ''}`}
            type="password"
            autoComplete="off"
            placeholder="bxk_…"
            value={key}
            onChange={(e) => setKey(e.target.value)}
            data-testid="signin-key"
            aria-describedby="signin-help"
          />
          {error && (
            <p className="mt-1 text-xs text-rose-300" role="alert" data-testid="signin-error">
              {error}
            </p>
          )}
          <p id="signin-help" className="mt-1.5 text-xs text-ink-400">
            The service wrote one to <code>~/.box-desktop/api-key</code> (or <code>&lt;data dir&gt;/api-key</code>) on its first start. It stays in this browser
            as a session cookie, never in the page.
          </p>
        </div>
        <Button
          variant="primary"
          busy={busy}
          disabled={!key.trim()}
          className="w-full justify-center"
          data-testid="signin-submit"
          onClick={() => void submit()}
        >
          Sign in
        </Button>
        <p className="border-t border-ink-700 pt-3 text-xs text-ink-400">
          Or get a fresh one-time link in a terminal: <code className="text-ink-300">npx box login-link</code>
        </p>
      </form>
    </div>
  );
}
