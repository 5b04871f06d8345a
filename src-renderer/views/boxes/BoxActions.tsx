import type { Box } from '../../api/hooks/boxes.js';
import { useBoxAction } from '../../api/hooks/boxes.js';
import { Button } from '../../ui/Button.js';
import { ConfirmButton } from '../../ui/ConfirmButton.js';
import { navigate } from '../../app/router.js';
import { ErrorNotice } from '../../ui/states.js';
import { toast } from '../../ui/toast.js';
import { ACTIONS, actionEnabled } from './lifecycle.js';

/** From a box's own page, terminating goes back to the list (the page has nothing left to do). */
function terminated(box: Box, compact?: boolean) {
  toast(`Box ${box.name} terminated. Its checkpoints can still start new boxes.`);
  if (!compact) navigate(['boxes']);
}

/** Lifecycle buttons, each disabled (with the reason as a tooltip) where the status forbids it. */
export function BoxActions({ box, compact }: { box: Box; compact?: boolean }) {
  const act = useBoxAction();
  const busy = (op: string) => act.isPending && act.variables?.action === op;
  return (
    <div className={`inline-flex flex-col items-end gap-1`}>
      <div className="inline-flex items-center gap-1">
        {ACTIONS.filter((a) => !compact || actionEnabled(a.op, box.status)).map((a) => {
          const enabled = actionEnabled(a.op, box.status);
          const title = enabled ? a.hint : `Not while the box is ${box.status.replace(/_/g, ' ')}`;
          if (a.op === 'terminate') {
            return (
              <span key={a.op} title={title}>
                <ConfirmButton
                  disabled={!enabled || act.isPending}
                  busy={busy(a.op)}
                  testId="action-terminate"
                  confirmLabel="Terminate?"
                  onConfirm={() => act.mutate({ id: box.box_id, action: 'terminate' }, { onSuccess: () => terminated(box, compact) })}
                >
                  {a.label}
                </ConfirmButton>
              </span>
            );
          }
          return (
            <span key={a.op} title={title}>
              <Button
                small
                variant="ghost"
                disabled={!enabled || act.isPending}
                busy={busy(a.op)}
                data-testid={`action-${a.op}`}
                onClick={() => act.mutate({ id: box.box_id, action: a.op })}
              >
                {a.label}
              </Button>
            </span>
          );
        })}
      </div>
      {act.error && <ErrorNotice error={act.error} compact />}
    </div>
  );
}
