import { useEffect, useState } from 'react';
import { useBoxes } from '../../api/hooks/boxes.js';
import { href, navigate, useRoute } from '../../app/router.js';
import { Ago } from '../../ui/Ago.js';
import { Button } from '../../ui/Button.js';
import { formatResources, shortId } from '../../ui/format.js';
import { Empty, ErrorNotice, Loading, PageHeader } from '../../ui/states.js';
import { StatusPill } from '../../ui/StatusPill.js';
import { BoxActions } from './BoxActions.js';
import { BoxDetail } from './BoxDetail.js';
import { CreateBoxDialog } from './CreateBoxDialog.js';
import { FirstRunChecklist } from './FirstRunChecklist.js';
import { LiveUsage } from './LiveUsage.js';

const FILTERS = ['', 'running', 'paused', 'sleeping', 'failed', 'terminated'];

export function BoxesView({ boxId, tab }: { boxId?: string; tab?: string }) {
  if (boxId) return <BoxDetail boxId={boxId} tab={tab ?? 'terminal'} />;
  return <BoxList />;
}

function BoxList() {
  const [search, setSearch] = useState('');
  const [status, setStatus] = useState('');
  const [offset, setOffset] = useState(0);
  const [creating, setCreating] = useState(false);
  // `#/boxes?new=1` (the palette's "Create a box…") opens the dialog.
  const wantsNew = useRoute().params.get('new') === '1';
  useEffect(() => {
    if (!wantsNew) return;
    setCreating(true);
    navigate(['boxes']);
  }, [wantsNew]);
  const boxes = useBoxes({ search: search || undefined, status: status || undefined, offset });
  return (
    <div data-testid="view-boxes">
      <PageHeader
        title="Boxes"
        subtitle="MicroVM sandboxes on this machine."
        actions={
          <Button variant="primary" needsService onClick={() => setCreating(true)} data-testid="box-new">
            New box
          </Button>
        }
      />
      <FirstRunChecklist onCreate={() => setCreating(true)} />
      <div className="mb-3 flex flex-wrap items-center gap-2">
        <input
          className="input max-w-xs"
          placeholder="Search by name"
          value={search}
          onChange={(e) => (setSearch(e.target.value), setOffset(0))}
          aria-label="Search boxes"
        />
        <div className="flex rounded-md bg-ink-950 p-0.5 text-xs">
          {FILTERS.map((f) => (
            <button
              key={f}
              type="button"
              onClick={() => (setStatus(f), setOffset(0))}
              className={`rounded px-2 py-1 ${status === f ? 'bg-ink-700 text-ink-100' : 'text-ink-400 hover:text-ink-100'}`}
            >
              {f || 'all'}
            </button>
          ))}
        </div>
      </div>
      {boxes.isPending ? (
        <Loading />
      ) : boxes.error ? (
        <ErrorNotice error={boxes.error} />
      ) : boxes.data.data.length === 0 ? (
        <Empty
          title={search || status ? 'No box matches' : 'No boxes yet'}
          action={
            <Button variant="primary" needsService onClick={() => setCreating(true)}>
              Create a box
            </Button>
          }
        >
          A box is a small VM with its own disk; it can pause, sleep, checkpoint and fork.
        </Empty>
      ) : (
        <div className="panel overflow-x-auto">
          <table className="table" data-testid="box-table">
            <thead>
              <tr>
                <th>Name</th>
                <th>Status</th>
                <th className="hidden 2xl:table-cell">Id</th>
                <th className="hidden xl:table-cell">Image</th>
                <th className="hidden sm:table-cell">Resources</th>
                <th className="hidden xl:table-cell">Live</th>
                <th>Created</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {boxes.data.data.map((b) => (
                <tr key={b.box_id} data-testid="box-row" data-name={b.name}>
                  <td>
                    <a href={href(['boxes', b.box_id])} className="font-medium whitespace-nowrap hover:underline">
                      {b.name}
                    </a>
                    {b.error_message && (
                      <div className="max-w-xs truncate text-xs text-rose-300" title={b.error_message}>
                        {b.error_message}
                      </div>
                    )}
                  </td>
                  <td>
                    <StatusPill status={b.status} testId="box-status" />
                  </td>
                  <td className="hidden font-mono text-xs text-ink-400 2xl:table-cell" title={b.box_id}>
                    {shortId(b.box_id)}
                  </td>
                  <td className="hidden font-mono text-xs xl:table-cell">{b.image}</td>
                  <td className="hidden min-w-36 font-mono text-xs text-ink-300 sm:table-cell">{formatResources(b)}</td>
                  <td className="hidden xl:table-cell">{b.status === 'running' ? <LiveUsage boxId={b.box_id} /> : <span className="text-ink-600">—</span>}</td>
                  <td className="whitespace-nowrap text-ink-400">
                    <Ago iso={b.created_at} testId="box-created" />
                  </td>
                  <td className="text-right">
                    <BoxActions box={b} compact />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <div className="flex items-center justify-between px-3 py-2 text-xs text-ink-400">
            <span>
              {boxes.data.offset + 1}–{boxes.data.offset + boxes.data.data.length} of {boxes.data.total}
            </span>
            <span className="flex gap-1">
              <Button small variant="ghost" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - boxes.data.limit))}>
                Previous
              </Button>
              <Button small variant="ghost" disabled={!boxes.data.has_more} onClick={() => setOffset(offset + boxes.data.limit)}>
                Next
              </Button>
            </span>
          </div>
        </div>
      )}
      {creating && <CreateBoxDialog onClose={() => setCreating(false)} />}
    </div>
  );
}
