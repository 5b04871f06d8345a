import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { OnQuit } from '@box/contract/service-admin';
import { api } from '../../api/client.js';
import { useStatus } from '../../api/hooks/identity.js';
import { ErrorNotice, Loading } from '../../ui/states.js';

interface QuitPlan {
  action: string;
  running: number;
  message: string;
}

const CHOICES: { value: OnQuit; label: string; hint: string }[] = [
  { value: 'ask', label: 'Ask', hint: 'The desktop app asks when boxes are running (with "remember my choice"); a headless service puts them to sleep.' },
  {
    value: 'stop_boxes',
    label: 'Put running boxes to sleep',
    hint: 'Memory is saved to disk; each box wakes on its next exec, file call or request. Nothing is lost.',
  },
  {
    value: 'leave_running',
    label: 'Leave them running',
    hint: 'The VMs keep running without the service (unreachable until it starts again, then taken over).',
  },
];

/** What quitting the app or the service does to running boxes (setting `on_quit`), and what it would do now. */
export function QuitPanel() {
  const qc = useQueryClient();
  const settings = useQuery({ queryKey: ['service-settings'], queryFn: () => api<{ on_quit: OnQuit }>('/v1/service/settings') });
  // What quitting does depends on who runs the service: only the desktop app can ask.
  const shell = useStatus().data?.shell ?? 'headless';
  const plan = useQuery({
    queryKey: ['quit-plan', shell],
    queryFn: () => api<QuitPlan>(`/v1/service/quit-plan?where=${shell}`),
    refetchInterval: 10_000,
  });
  const save = useMutation({
    mutationFn: (on_quit: OnQuit) => api<{ on_quit: OnQuit }>('/v1/service/settings', { method: 'PATCH', json: { on_quit } }),
    onSuccess: (s) => {
      qc.setQueryData(['service-settings'], s);
      return qc.invalidateQueries({ queryKey: ['quit-plan'] });
    },
  });
  // The choice shows at once, then the stored one. It is React state set in the click's own
  // handler: the mutation's pending state reaches the component a tick later (react-query
  // batches its notifications), after React has already put the controlled radio back.
  const [choosing, setChoosing] = useState<OnQuit | null>(null);
  const current = choosing ?? settings.data?.on_quit;
  return (
    <section className="panel p-4" id="quit" data-testid="quit-panel">
      <h2 className="mb-1 font-semibold">When quitting</h2>
      <p className="mb-3 text-xs text-ink-400" data-testid="quit-shell" data-shell={shell}>
        What happens to running boxes when you {shell === 'desktop' ? 'quit the app' : 'stop this headless service (Ctrl+C, SIGTERM)'}.
      </p>
      {settings.isPending ? (
        <Loading />
      ) : (
        <fieldset className="space-y-2" disabled={save.isPending}>
          {CHOICES.map((c) => (
            <label key={c.value} className="flex cursor-pointer items-start gap-2">
              <input
                type="radio"
                name="on_quit"
                className="mt-1"
                checked={current === c.value}
                onChange={() => {
                  setChoosing(c.value);
                  save.mutate(c.value, { onSettled: () => setChoosing(null) });
                }}
                data-testid={`on-quit-${c.value}`}
              />
              <span>
                <span className="text-sm" data-testid={`on-quit-label-${c.value}`}>
                  {c.value === 'ask' && shell === 'headless' ? 'Ask (desktop app only): this headless service puts running boxes to sleep' : c.label}
                </span>
                <span className="block text-xs text-ink-400">{c.hint}</span>
              </span>
            </label>
          ))}
        </fieldset>
      )}
      {plan.data && (
        <p className="mt-3 rounded-md bg-ink-950 px-2.5 py-1.5 text-xs text-ink-300" data-testid="quit-plan">
          Now: {plan.data.message}
        </p>
      )}
      <div className="mt-2">
        <ErrorNotice error={settings.error ?? save.error ?? plan.error} compact />
      </div>
    </section>
  );
}
