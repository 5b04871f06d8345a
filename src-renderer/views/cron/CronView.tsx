import { useState } from 'react';
import { Ago } from '../../ui/Ago.js';
import { useBoxes } from '../../api/hooks/boxes.js';
import { PAGE_SIZE, useAllCronJobs, useCronJobs, useCronRuns, useDeleteCron, useRunCronNow, type CronJob } from '../../api/hooks/cron.js';
import { href, navigate } from '../../app/router.js';
import { Button } from '../../ui/Button.js';
import { ConfirmButton } from '../../ui/ConfirmButton.js';
import { formatTime } from '../../ui/format.js';
import { Empty, ErrorNotice, Loading, PageHeader } from '../../ui/states.js';
import { StatusPill } from '../../ui/StatusPill.js';
import { CreateCronForm } from './CreateCronForm.js';
import { inZone } from './next-runs.js';

export function CronView({ boxId }: { boxId?: string }) {
  const boxes = useBoxes();
  const [offset, setOffset] = useState(0);
  const perBox = useCronJobs(boxId ?? '', offset);
  const all = useAllCronJobs(!boxId);
  const names = new Map((boxes.data?.data ?? []).map((b) => [b.box_id, b.name]));
  const allRows = all.data ?? [];
  const rows = boxId ? perBox.data?.data : allRows.slice(offset, offset + PAGE_SIZE);
  const total = boxId ? (perBox.data?.total ?? 0) : allRows.length;
  const q = boxId ? perBox : all;
  return (
    <div data-testid="view-cron">
      <PageHeader title="Cron jobs" subtitle="Schedules kept by the service: a due job wakes a sleeping box, runs, and lets it sleep again." />
      <div className="mb-3 flex items-center gap-2">
        <select
          className="input max-w-xs"
          value={boxId ?? ''}
          onChange={(e) => (setOffset(0), navigate(['cron'], { box: e.target.value || undefined }))}
          data-testid="cron-box"
          aria-label="Box"
        >
          <option value="">All boxes</option>
          {boxes.data?.data
            .filter((b) => b.status !== 'terminated')
            .map((b) => (
              <option key={b.box_id} value={b.box_id}>
                {b.name}
              </option>
            ))}
        </select>
      </div>
      <div className={`grid gap-5 ${boxId ? 'xl:grid-cols-[1fr_24rem]' : ''}`}>
        <section className="min-w-0">
          {q.isPending && (boxId || !all.data) ? (
            <Loading />
          ) : q.error ? (
            <ErrorNotice error={q.error} />
          ) : !rows || rows.length === 0 ? (
            <Empty title="No cron jobs">{boxId ? 'Add one with the form.' : 'Pick a box to add a cron job to it.'}</Empty>
          ) : (
            <div className="panel overflow-x-auto">
              <table className="table" data-testid="cron-table">
                <thead>
                  <tr>
                    {!boxId && <th>Box</th>}
                    <th>Schedule</th>
                    <th>Command</th>
                    <th>Next run</th>
                    <th className="hidden lg:table-cell">Last run</th>
                    <th />
                  </tr>
                </thead>
                <tbody>
                  {rows.map((j) => (
                    <CronRow key={j.id} job={j} showBox={!boxId} boxName={names.get(j.box_id)} />
                  ))}
                </tbody>
              </table>
              <div className="flex items-center justify-between px-3 py-2 text-xs text-ink-400">
                <span>
                  {offset + 1}–{offset + rows.length} of {total}
                </span>
                <span className="flex gap-1">
                  <Button small variant="ghost" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE_SIZE))}>
                    Previous
                  </Button>
                  <Button small variant="ghost" disabled={offset + rows.length >= total} onClick={() => setOffset(offset + PAGE_SIZE)}>
                    Next
                  </Button>
                </span>
              </div>
            </div>
          )}
        </section>
        {boxId && <CreateCronForm boxId={boxId} />}
      </div>
    </div>
  );
}

function CronRow({ job, showBox, boxName }: { job: CronJob; showBox: boolean; boxName?: string }) {
  const del = useDeleteCron(job.box_id);
  const run = useRunCronNow(job.box_id);
  const [open, setOpen] = useState(false);
  return (
    <>
      <tr data-testid="cron-row">
        {showBox && (
          <td>
            <a className="hover:underline" href={href(['cron'], { box: job.box_id })}>
              {boxName ?? job.box_id.slice(0, 12)}
            </a>
          </td>
        )}
        <td>
          <div className="font-mono whitespace-nowrap">{job.schedule}</div>
          <div className="text-[11px] text-ink-400">{job.timezone}</div>
        </td>
        <td className="max-w-[10rem] truncate font-mono text-xs lg:max-w-xs" title={job.command}>
          {job.command}
        </td>
        <td className="text-xs">
          <div className="font-mono whitespace-nowrap" data-testid="cron-next-run">
            {inZone(new Date(job.next_run_at), job.timezone)}
          </div>
          <div className="text-ink-400">
            <Ago iso={job.next_run_at} />
          </div>
        </td>
        <td className="hidden text-xs text-ink-400 lg:table-cell" data-testid="cron-last-run" data-at={job.last_run_at ?? ''}>
          {job.last_run_at ? formatTime(job.last_run_at) : 'never'}
        </td>
        <td className="text-right">
          <div className="flex flex-wrap items-center justify-end gap-1">
            <Button small variant="ghost" onClick={() => setOpen(!open)} aria-expanded={open}>
              Runs
            </Button>
            <Button
              small
              variant="ghost"
              busy={run.isPending}
              onClick={() => run.mutate(job.id, { onSuccess: () => setOpen(true) })}
              data-testid="cron-run-now"
            >
              Run now
            </Button>
            <ConfirmButton busy={del.isPending} onConfirm={() => del.mutate(job.id)} confirmLabel="Delete?" testId="cron-delete">
              Delete
            </ConfirmButton>
          </div>
          {(run.error || del.error) && <ErrorNotice error={run.error ?? del.error} compact />}
        </td>
      </tr>
      {open && (
        <tr>
          <td colSpan={6} className="bg-ink-900">
            <CronRuns job={job} />
          </td>
        </tr>
      )}
    </>
  );
}

function CronRuns({ job }: { job: CronJob }) {
  const runs = useCronRuns(job.box_id, job.id);
  if (runs.isPending) return <Loading />;
  if (runs.error) return <ErrorNotice error={runs.error} compact />;
  if (runs.data.data.length === 0) return <p className="py-2 text-ink-400">No runs yet.</p>;
  return (
    <ul className="space-y-1 py-1 text-xs">
      {runs.data.data.map((r) => (
        <li key={r.run_id} className="flex items-start gap-3">
          <StatusPill status={r.status} />
          <span className="text-ink-400">{formatTime(r.started_at)}</span>
          <span className="font-mono">exit {r.return_code ?? '—'}</span>
          <pre className="max-h-24 flex-1 overflow-auto font-mono whitespace-pre-wrap text-ink-300">{r.output_tail}</pre>
        </li>
      ))}
    </ul>
  );
}
