import { useState } from 'react';
import { ApiError } from '../../api/client.js';
import { useCreateCron } from '../../api/hooks/cron.js';
import { Button } from '../../ui/Button.js';
import { ErrorNotice } from '../../ui/states.js';
import { inZone, nextRuns, PRESETS, timeZones } from './next-runs.js';

const localZone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/** Schedule helper: presets, the time zone, and the next five runs as the zone's wall clock. */
export function CreateCronForm({ boxId }: { boxId: string }) {
  const create = useCreateCron(boxId);
  const [schedule, setSchedule] = useState('0 9 * * 1-5');
  const [tz, setTz] = useState(localZone);
  const [command, setCommand] = useState('');
  const [cwd, setCwd] = useState('');
  const [timeout, setTimeout_] = useState('');
  const preview = nextRuns(schedule, tz);
  const err = create.error instanceof ApiError ? create.error : null;
  const at = (p: string) => (err?.param === p ? err.message : null);
  return (
    <form
      className="panel space-y-3 p-4"
      data-testid="cron-create"
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate(
          { schedule: schedule.trim(), timezone: tz, command, cwd: cwd || undefined, timeout: timeout ? Number(timeout) : undefined },
          { onSuccess: () => setCommand('') },
        );
      }}
    >
      <h2 className="font-semibold">New cron job</h2>
      <div className="flex flex-wrap gap-1">
        {PRESETS.map((p) => (
          <button
            key={p.schedule}
            type="button"
            onClick={() => setSchedule(p.schedule)}
            className={`rounded-full border px-2 py-0.5 text-[11px] ${schedule === p.schedule ? 'border-accent-500 text-accent-300' : 'border-ink-700 text-ink-400 hover:text-ink-100'}`}
          >
            {p.label}
          </button>
        ))}
      </div>
      <div className="grid grid-cols-2 gap-2">
        <label>
          <span className="label">Schedule</span>
          <input
            className={`input font-mono ${'error' in preview || at('schedule') ? 'input-error' : ''}`}
            value={schedule}
            onChange={(e) => setSchedule(e.target.value)}
            data-testid="cron-schedule"
          />
        </label>
        <label>
          <span className="label">Time zone</span>
          <select className="input" value={tz} onChange={(e) => setTz(e.target.value)} data-testid="cron-tz">
            {timeZones().map((z) => (
              <option key={z}>{z}</option>
            ))}
          </select>
        </label>
      </div>
      <div className="rounded-md bg-ink-950 p-2 text-xs" data-testid="cron-preview">
        {'error' in preview ? (
          <span className="text-rose-300">{preview.error}</span>
        ) : (
          <>
            <div className="mb-1 text-ink-400">
              Next runs ({tz}
              {tz !== localZone ? `; your time ${localZone}` : ''})
            </div>
            <ol className="space-y-0.5 font-mono">
              {preview.runs.map((d) => (
                <li key={d.getTime()} data-testid="cron-next-run">
                  {inZone(d, tz)}
                  {tz !== localZone && <span className="text-ink-400"> · {inZone(d, localZone)}</span>}
                </li>
              ))}
            </ol>
          </>
        )}
      </div>
      <label className="block">
        <span className="label">Command</span>
        <input
          className="input font-mono"
          placeholder="backup.sh --quiet"
          value={command}
          onChange={(e) => setCommand(e.target.value)}
          data-testid="cron-command"
        />
      </label>
      <div className="grid grid-cols-2 gap-2">
        <label>
          <span className="label">Working dir</span>
          <input className="input font-mono" placeholder="/root" value={cwd} onChange={(e) => setCwd(e.target.value)} />
        </label>
        <label>
          <span className="label">Timeout (s)</span>
          <input className="input font-mono" inputMode="numeric" value={timeout} onChange={(e) => setTimeout_(e.target.value)} />
        </label>
      </div>
      <ErrorNotice error={create.error} compact />
      <Button type="submit" variant="primary" busy={create.isPending} disabled={!command || 'error' in preview} data-testid="cron-submit">
        Add cron job
      </Button>
    </form>
  );
}
