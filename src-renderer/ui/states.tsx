import type { ReactNode } from 'react';
import { ApiError, errorMessage } from '../api/client.js';

export function Loading({ label = 'Loading' }: { label?: string }) {
  return (
    <div className="flex items-center gap-2 px-3 py-6 text-ink-400" data-testid="loading">
      <span className="h-3.5 w-3.5 animate-spin rounded-full border-2 border-ink-600 border-t-accent-400" />
      {label}…
    </div>
  );
}

export function Empty({ title, children, action }: { title: string; children?: ReactNode; action?: ReactNode }) {
  return (
    <div className="flex flex-col items-center justify-center gap-2 rounded-lg border border-dashed border-ink-700 px-6 py-12 text-center" data-testid="empty">
      <div className="text-sm font-semibold text-ink-300">{title}</div>
      {children && <div className="max-w-md text-ink-400">{children}</div>}
      {action && <div className="mt-2">{action}</div>}
    </div>
  );
}

/** The API's own message, with its type/code and the field it names. */
export function ErrorNotice({ error, compact }: { error: unknown; compact?: boolean }) {
  if (!error) return null;
  const api = error instanceof ApiError ? error : null;
  const missing = api?.status === 404 && api.code === null && /Cannot|not found/i.test(api.message);
  return (
    <div
      role="alert"
      data-testid="error"
      className={`rounded-md border border-rose-500/40 bg-rose-500/10 text-rose-200 ${compact ? 'px-2 py-1 text-xs' : 'px-3 py-2'}`}
    >
      <div>{missing ? 'This part of the service is not available yet.' : errorMessage(error)}</div>
      {api && !compact && (
        <div className="mt-0.5 font-mono text-[11px] text-rose-300">
          {api.status} {api.type}
          {api.code !== null && ` · ${api.code}`}
          {api.param && ` · ${api.param}`}
        </div>
      )}
    </div>
  );
}

export function PageHeader({ title, subtitle, actions }: { title: string; subtitle?: ReactNode; actions?: ReactNode }) {
  return (
    <div className="mb-5 flex items-end justify-between gap-4">
      <div>
        <h1 className="text-lg font-semibold tracking-tight">{title}</h1>
        {subtitle && <p className="mt-0.5 text-ink-400">{subtitle}</p>}
      </div>
      {actions && <div className="flex items-center gap-2">{actions}</div>}
    </div>
  );
}
