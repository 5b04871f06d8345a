import type { ComponentProps } from 'react';
import { SERVICE_DOWN_HINT, useServiceUp } from '../api/connection.js';

type Variant = 'primary' | 'secondary' | 'ghost' | 'danger';

const VARIANTS: Record<Variant, string> = {
  primary: 'bg-accent-500 text-ink-950 hover:bg-accent-400 font-semibold',
  secondary: 'bg-ink-700 text-ink-100 hover:bg-ink-600',
  ghost: 'text-ink-300 hover:bg-ink-800 hover:text-ink-100',
  danger: 'bg-rose-600/90 text-white hover:bg-rose-500',
};

export function Button({
  variant = 'secondary',
  small,
  className = '',
  busy,
  children,
  disabled,
  needsService,
  title,
  ...rest
}: ComponentProps<'button'> & {
  variant?: Variant;
  small?: boolean;
  busy?: boolean;
  /** It changes something in the service: disabled (saying why) while the service is down. */
  needsService?: boolean;
}) {
  const down = !useServiceUp() && needsService;
  return (
    <button
      type="button"
      {...rest}
      title={down ? SERVICE_DOWN_HINT : title}
      disabled={disabled || busy || down}
      className={`inline-flex items-center gap-1.5 rounded-md transition-colors disabled:cursor-not-allowed disabled:opacity-40 ${small ? 'px-2 py-1 text-xs' : 'px-3 py-1.5 text-sm'} ${VARIANTS[variant]} ${className}`}
    >
      {busy && <span className="inline-block h-3 w-3 animate-spin rounded-full border-2 border-current border-t-transparent" aria-hidden />}
      {children}
    </button>
  );
}
