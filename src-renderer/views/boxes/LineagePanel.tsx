import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Ago } from '../../ui/Ago.js';
import { useId, useState } from 'react';
import { call } from '../../api/client.js';
import { ConfirmButton } from '../../ui/ConfirmButton.js';
import { toast } from '../../ui/toast.js';
import { useBoxes, useCheckpointBox, useCheckpointsOf, useForkBox, useLineage, useRestoreCheckpoint, type Box } from '../../api/hooks/boxes.js';
import { href, navigate } from '../../app/router.js';
import { Button } from '../../ui/Button.js';
import { formatBytes } from '../../ui/format.js';
import { ErrorNotice, Loading } from '../../ui/states.js';
import { BoxName } from '../../ui/names.js';
import { StatusPill } from '../../ui/StatusPill.js';
import { allows, forkName as freeForkName } from './lifecycle.js';
import { buildLineage, type BoxNode, type CheckpointNode } from './lineage-tree.js';
import { RestoreInPlace } from './RestoreInPlace.js';

export function LineagePanel({ box }: { box: Box }) {
  const boxes = useBoxes();
  const cps = useCheckpointsOf(box);
  const lineage = useLineage();
  const checkpoint = useCheckpointBox();
  const fork = useForkBox();
  const cpLabelId = useId();
  const forkLabelId = useId();
  const [cpName, setCpName] = useState('');
  // The suggested name is free (a second fork must not answer 409); once edited, the user's.
  const similar = useBoxes({ search: box.name, limit: 100 });
  const taken = new Set((similar.data?.data ?? []).filter((b) => b.status !== 'terminated').map((b) => b.name));
  const [edited, setForkName] = useState<string | null>(null);
  const forkName = edited ?? freeForkName(box.name, taken);
  const tree = boxes.data && cps.data ? buildLineage(box.box_id, boxes.data.data, cps.data, lineage.data ?? []) : null;
  // Every box with the checkpoint it stands on (the service records it: taken, started from or
  // restored to last), so each checkpoint shows who is on it.
  const on = new Map<string, string[]>();
  for (const b of boxes.data?.data ?? []) {
    const id = b.box_id === box.box_id ? box.on_checkpoint_id : b.on_checkpoint_id;
    if (id) on.set(id, [...(on.get(id) ?? []), b.box_id]);
  }
  if (box.on_checkpoint_id && !on.get(box.on_checkpoint_id)?.includes(box.box_id))
    on.set(box.on_checkpoint_id, [...(on.get(box.on_checkpoint_id) ?? []), box.box_id]);
  const mine = box.on_checkpoint_id;
  return (
    <section className="grid gap-4 xl:grid-cols-[1fr_20rem]" data-testid="lineage">
      <div className="panel p-4">
        {tree && (
          <p className="mb-2 text-xs text-ink-300" data-testid="on-checkpoint">
            {mine ? (
              <>
                <strong className="text-ink-100">{box.name}</strong> is on checkpoint{' '}
                <span className="font-mono">{cpLabel(cps.data?.find((c) => c.checkpoint_id === mine)) ?? mine}</span>
                {box.last_checkpointed_at && mine && cps.data?.find((c) => c.checkpoint_id === mine)?.box_id === box.box_id ? ' (with what changed since)' : ''}
              </>
            ) : (
              <>
                <strong className="text-ink-100">{box.name}</strong> is on no checkpoint yet: checkpoint it to save where it is.
              </>
            )}
          </p>
        )}
        {!tree ? <Loading /> : <ul className="font-mono text-xs">{<BoxItem node={tree} current={box} on={on} />}</ul>}
        <ErrorNotice error={boxes.error ?? cps.error} compact />
      </div>
      <div className="space-y-4">
        <form
          className="panel space-y-2 p-4"
          onSubmit={(e) => (e.preventDefault(), checkpoint.mutate({ id: box.box_id, name: cpName || undefined }, { onSuccess: () => setCpName('') }))}
        >
          <div className="label" id={cpLabelId}>
            Checkpoint this box
          </div>
          <input className="input" aria-labelledby={cpLabelId} placeholder="name (optional)" value={cpName} onChange={(e) => setCpName(e.target.value)} />
          <Button type="submit" needsService busy={checkpoint.isPending} disabled={!allows('checkpoint', box.status)} data-testid="checkpoint">
            Checkpoint
          </Button>
          <ErrorNotice error={checkpoint.error} compact />
        </form>
        <form
          className="panel space-y-2 p-4"
          onSubmit={(e) => (e.preventDefault(), fork.mutate({ id: box.box_id, name: forkName }, { onSuccess: () => setForkName(null) }))}
        >
          <div className="label" id={forkLabelId}>
            {box.status === 'failed' ? 'Fork from its last checkpoint (a new running box)' : 'Fork (checkpoint + new box, without waking it)'}
          </div>
          <input
            className="input font-mono"
            data-testid="fork-name"
            aria-labelledby={forkLabelId}
            value={forkName}
            onChange={(e) => setForkName(e.target.value.toLowerCase())}
          />
          <Button type="submit" needsService busy={fork.isPending} disabled={!allows('fork', box.status) || !forkName} data-testid="fork">
            Fork
          </Button>
          <ErrorNotice error={fork.error} compact />
        </form>
      </div>
    </section>
  );
}

function BoxItem({ node, current, on }: { node: BoxNode; current: Box; on: Map<string, string[]> }) {
  return (
    <li className="relative">
      <div className={`flex items-center gap-2 rounded px-2 py-1 ${node.id === current.box_id ? 'bg-accent-500/10 ring-1 ring-accent-500/40' : ''}`}>
        <span className="text-sky-300">▣</span>
        {node.box ? (
          <a className="hover:underline" href={href(['boxes', node.id, 'checkpoints'])} title={node.id}>
            {node.box.name}
          </a>
        ) : (
          <BoxName id={node.id} tab="checkpoints" />
        )}
        {node.box && <StatusPill status={node.box.status} />}
      </div>
      {node.children.length > 0 && (
        <ul className="ml-4 border-l border-ink-700 pl-3">
          {node.children.map((c) =>
            c.kind === 'box' ? <BoxItem key={c.id} node={c} current={current} on={on} /> : <CheckpointItem key={c.id} node={c} current={current} on={on} />,
          )}
        </ul>
      )}
    </li>
  );
}

function CheckpointItem({ node, current, on }: { node: CheckpointNode; current: Box; on: Map<string, string[]> }) {
  const restore = useRestoreCheckpoint();
  const qc = useQueryClient();
  const del = useMutation({
    mutationFn: (id: string) => call('DELETE /v1/box-checkpoints/:checkpoint_id', { params: { checkpoint_id: id } }),
    onSettled: () => Promise.all([qc.invalidateQueries({ queryKey: ['checkpoints'] }), qc.invalidateQueries({ queryKey: ['lineage'] })]),
  });
  const [name, setName] = useState('');
  const [open, setOpen] = useState(false);
  const c = node.checkpoint;
  return (
    <li data-testid="checkpoint-node" data-id={c.checkpoint_id} data-current={on.get(c.checkpoint_id)?.includes(current.box_id) || undefined}>
      <div className="flex flex-wrap items-center gap-2 px-2 py-1">
        <span className="text-amber-300">◆</span>
        <span>{cpLabel(c)}</span>
        {(on.get(c.checkpoint_id) ?? []).map((id) => (
          <span
            key={id}
            className={`rounded px-1.5 font-sans text-[11px] ${id === current.box_id ? 'bg-accent-500/15 text-accent-300' : 'bg-ink-800 text-ink-300'}`}
            data-testid="checkpoint-here"
            data-box={id}
          >
            {id === current.box_id ? `${current.name} is here` : <BoxName id={id} tab="checkpoints" />}
          </span>
        ))}
        <span className="text-ink-400">
          gen {c.checkpoint_generation} · {formatBytes(c.size_bytes)} · <Ago iso={c.created_at} />
        </span>
        <StatusPill status={c.status} />
        {c.status === 'ready' && (
          <button type="button" className="text-accent-300 hover:underline" onClick={() => setOpen(!open)} data-testid="checkpoint-restore">
            new box from here
          </button>
        )}
        {c.status === 'ready' && c.box_id === current.box_id && <RestoreInPlace box={current} checkpoint={c} />}
        <ConfirmButton
          testId="checkpoint-delete"
          confirmLabel="Delete checkpoint?"
          busy={del.isPending}
          onConfirm={() => del.mutate(c.checkpoint_id, { onSuccess: () => toast(`Checkpoint ${c.name ?? c.checkpoint_id} deleted`, 'info', 3000) })}
        >
          Delete
        </ConfirmButton>
        <ErrorNotice error={del.error} compact />
      </div>
      {open && (
        <form
          className="ml-6 flex gap-2 py-1"
          onSubmit={(e) => (e.preventDefault(), restore.mutate({ checkpoint_id: c.checkpoint_id, name }, { onSuccess: (b) => navigate(['boxes', b.box_id]) }))}
        >
          <input className="input w-48 font-mono" placeholder="new-box-name" value={name} onChange={(e) => setName(e.target.value.toLowerCase())} autoFocus />
          <Button type="submit" small needsService busy={restore.isPending} disabled={!name}>
            Start
          </Button>
          <ErrorNotice error={restore.error} compact />
        </form>
      )}
      {node.children.length > 0 && (
        <ul className="ml-4 border-l border-ink-700 pl-3">
          {node.children.map((b) => (
            <BoxItem key={b.id} node={b} current={current} on={on} />
          ))}
        </ul>
      )}
    </li>
  );
}

const cpLabel = (c: { name: string | null; checkpoint_id: string } | undefined) => (c ? (c.name ?? c.checkpoint_id.slice(0, 14)) : undefined);
