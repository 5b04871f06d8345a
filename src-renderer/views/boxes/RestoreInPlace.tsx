import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { Checkpoint } from '@box/contract/boxes';
import { call } from '../../api/client.js';
import type { Box } from '../../api/hooks/boxes.js';
import { Button } from '../../ui/Button.js';
import { Dialog } from '../../ui/Dialog.js';
import { ErrorNotice } from '../../ui/states.js';
import { toast } from '../../ui/toast.js';
import { allows } from './lifecycle.js';

/**
 * Restore in place (issue 29): the box goes back to one of its own checkpoints, disk and
 * memory. What it holds now is lost, so the dialog asks, and offers to checkpoint first.
 */
export function RestoreInPlace({ box, checkpoint }: { box: Box; checkpoint: Checkpoint }) {
  const [open, setOpen] = useState(false);
  const qc = useQueryClient();
  const cpName = checkpoint.name ?? checkpoint.checkpoint_id.slice(0, 14);
  const run = useMutation({
    mutationFn: async (first: boolean) => {
      const saved = first
        ? await call('POST /v1/boxes/:box_id/checkpoint', {
            params: { box_id: box.box_id },
            body: { name: `before-restore-${new Date().toISOString().slice(0, 19)}` },
          })
        : null;
      const after = await call('POST /v1/boxes/:box_id/restore', { params: { box_id: box.box_id }, body: { checkpoint_id: checkpoint.checkpoint_id } });
      return { saved, after };
    },
    onSuccess: ({ saved, after }) => {
      setOpen(false);
      if (after.status === 'running') toast(`${box.name} restored to ${cpName}${saved ? ` (its state before is checkpoint ${saved.name})` : ''}`, 'ok');
      else toast(`${box.name}: restoring ${cpName} failed: ${after.error_message ?? after.status}`, 'error');
    },
    onSettled: () => Promise.all(['boxes', 'checkpoints', 'lineage'].map((k) => qc.invalidateQueries({ queryKey: [k] }))),
  });
  const canCheckpoint = allows('checkpoint', box.status);
  return (
    <>
      <button
        type="button"
        className="text-accent-300 hover:underline disabled:cursor-not-allowed disabled:opacity-40"
        onClick={() => setOpen(true)}
        disabled={!allows('restore', box.status)}
        title={allows('restore', box.status) ? 'Take this box back to this checkpoint' : `Not while the box is ${box.status.replace(/_/g, ' ')}`}
        data-testid="checkpoint-restore-in-place"
      >
        restore here
      </button>
      {open && (
        <Dialog
          title={`Restore ${box.name} to ${cpName}?`}
          onClose={() => !run.isPending && setOpen(false)}
          testId="restore-dialog"
          footer={
            <div className="flex flex-wrap justify-end gap-2">
              <Button variant="ghost" onClick={() => setOpen(false)} disabled={run.isPending}>
                Cancel
              </Button>
              <Button
                onClick={() => run.mutate(true)}
                busy={run.isPending && run.variables === true}
                disabled={run.isPending || !canCheckpoint}
                title={canCheckpoint ? undefined : `A ${box.status.replace(/_/g, ' ')} box cannot be checkpointed`}
                data-testid="restore-checkpoint-first"
              >
                Checkpoint first, then restore
              </Button>
              <Button
                variant="danger"
                onClick={() => run.mutate(false)}
                busy={run.isPending && run.variables === false}
                disabled={run.isPending}
                data-testid="restore-confirm"
              >
                Restore, lose current state
              </Button>
            </div>
          }
        >
          <div className="space-y-2 text-sm" data-testid="restore-explain">
            <p>
              <span className="font-mono">{box.name}</span> goes back to checkpoint <span className="font-mono">{cpName}</span> (taken{' '}
              {new Date(checkpoint.created_at).toLocaleString()}): its disk and its memory, running processes included. It keeps its name, id and ports, and
              runs afterwards.
            </p>
            <p className="text-amber-300">What the box holds now is lost: files written since, processes started since. Checkpoint first to keep a way back.</p>
            <ErrorNotice error={run.error} />
          </div>
        </Dialog>
      )}
    </>
  );
}
