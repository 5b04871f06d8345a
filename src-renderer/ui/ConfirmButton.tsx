import { useEffect, useState, type ReactNode } from 'react';
import { Button } from './Button.js';

/** A destructive button that asks for a second click (no native confirm()). */
export function ConfirmButton({
  onConfirm,
  children,
  busy,
  disabled,
  small = true,
  testId,
  confirmLabel = 'Click again to confirm',
}: {
  onConfirm: () => void;
  children: ReactNode;
  busy?: boolean;
  disabled?: boolean;
  small?: boolean;
  testId?: string;
  confirmLabel?: string;
}) {
  const [armed, setArmed] = useState(false);
  useEffect(() => {
    if (!armed) return;
    const t = setTimeout(() => setArmed(false), 4000);
    return () => clearTimeout(t);
  }, [armed]);
  return (
    <Button
      small={small}
      variant={armed ? 'danger' : 'ghost'}
      busy={busy}
      disabled={disabled}
      data-testid={testId}
      onBlur={() => setArmed(false)}
      onClick={() => {
        if (!armed) return setArmed(true);
        setArmed(false);
        onConfirm();
      }}
    >
      {armed ? confirmLabel : children}
    </Button>
  );
}
