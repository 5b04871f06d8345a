import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { call } from '../../api/client.js';
import { useBoxes } from '../../api/hooks/boxes.js';
import type { Command, CommandSource } from '../../app/commands.js';
import { navigate } from '../../app/router.js';
import { toast } from '../../ui/toast.js';
import { errorMessage } from '../../api/client.js';
import { ACTIONS, actionEnabled, allows, forkName } from './lifecycle.js';
import { CONFIRM } from './BoxActions.js';

/** Every action on every box, by its name: open, terminal, files, cron, lifecycle, checkpoint, fork. */
export const BoxCommands: CommandSource = ({ publish }) => {
  const boxes = useBoxes({ limit: 100 });
  const qc = useQueryClient();
  useEffect(() => {
    const list = (boxes.data?.data ?? []).filter((b) => b.status !== 'terminated');
    const names = new Set(list.map((b) => b.name));
    const done = (what: string) => () => {
      toast(what, 'info', 3000);
      void qc.invalidateQueries({ queryKey: ['boxes'] });
    };
    const fail = (e: unknown) => toast(errorMessage(e), 'error', 9000);
    const cmds: Command[] = [];
    for (const b of list) {
      const k = `${b.box_id} ${b.status}`;
      cmds.push(
        { id: `open-${b.box_id}`, label: `Open box ${b.name}`, keywords: k, hint: b.status, run: () => navigate(['boxes', b.box_id]) },
        { id: `term-${b.box_id}`, label: `Terminal of ${b.name}`, keywords: `${k} shell`, run: () => navigate(['boxes', b.box_id, 'terminal']) },
        { id: `files-${b.box_id}`, label: `Files of ${b.name}`, keywords: k, run: () => navigate(['files', b.box_id]) },
        { id: `cron-${b.box_id}`, label: `Cron jobs of ${b.name}`, keywords: k, run: () => navigate(['cron'], { box: b.box_id }) },
      );
      for (const a of ACTIONS) {
        if (!actionEnabled(a.op, b.status)) continue;
        cmds.push({
          id: `${a.op}-${b.box_id}`,
          label: `${a.label} box ${b.name}`,
          keywords: k,
          hint: a.hint,
          confirm: CONFIRM[a.op] && `${CONFIRM[a.op]!.replace(/\?.*$/, '')} ${b.name}?`,
          run: () =>
            call(`POST /v1/boxes/:box_id/${a.op}` as 'POST /v1/boxes/:box_id/pause', { params: { box_id: b.box_id } }).then(
              done(`${b.name}: ${a.op} done`),
              fail,
            ),
        });
      }
      if (allows('checkpoint', b.status))
        cmds.push({
          id: `checkpoint-${b.box_id}`,
          label: `Checkpoint box ${b.name}`,
          keywords: k,
          run: () =>
            call('POST /v1/boxes/:box_id/checkpoint', { params: { box_id: b.box_id }, body: {} }).then(() => {
              done(`${b.name}: checkpoint taken`)();
              void qc.invalidateQueries({ queryKey: ['checkpoints'] });
            }, fail),
        });
      if (allows('fork', b.status)) {
        const name = forkName(b.name, names);
        cmds.push({
          id: `fork-${b.box_id}`,
          label: `Fork box ${b.name}`,
          hint: `→ ${name}`,
          keywords: k,
          run: () =>
            call('POST /v1/boxes/:box_id/fork', { params: { box_id: b.box_id }, body: { name } }).then((r) => {
              done(`${b.name} forked: ${name}`)();
              void qc.invalidateQueries({ queryKey: ['lineage'] });
              const first = r.boxes[0];
              if (first) navigate(['boxes', first.box_id]);
            }, fail),
        });
      }
    }
    publish('boxes', cmds);
  }, [boxes.data, publish, qc]);
  return null;
};
