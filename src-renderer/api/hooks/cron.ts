import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Page } from '../client.js';

export type { CronJob } from '../../../src-server/contract/cron.js';
import type { CronJob, CronRun } from '../../../src-server/contract/cron.js';

export const PAGE_SIZE = 20;

export const useCronJobs = (boxId: string, offset: number) =>
  useQuery({
    queryKey: ['cron', boxId, offset],
    queryFn: () => api<Page<CronJob>>(`/v1/boxes/${boxId}/cron`, { query: { limit: PAGE_SIZE, offset } }),
    enabled: Boolean(boxId),
    refetchInterval: 15_000,
  });

/** Every cron job of the organization, across boxes (the service answers them all at once). */
export const useAllCronJobs = (enabled: boolean) =>
  useQuery({ queryKey: ['cron', 'all'], queryFn: async () => (await api<{ data: CronJob[] }>('/v1/cron')).data, enabled, refetchInterval: 15_000 });

export const useCronRuns = (boxId: string, cronId: string | null) =>
  useQuery({
    queryKey: ['cron', boxId, cronId, 'runs'],
    queryFn: () => api<{ data: CronRun[] }>(`/v1/boxes/${boxId}/cron/${cronId}/runs`),
    enabled: Boolean(cronId),
    retry: false,
    refetchInterval: 5000,
  });

interface CreateCronInput {
  schedule: string;
  timezone: string;
  command: string;
  cwd?: string;
  user?: string;
  timeout?: number;
}

export function useCreateCron(boxId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateCronInput) => api<CronJob>(`/v1/boxes/${boxId}/cron`, { method: 'POST', json: body }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['cron'] }),
  });
}

export function useDeleteCron(boxId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (cronId: string) => api<unknown>(`/v1/boxes/${boxId}/cron/${cronId}`, { method: 'DELETE' }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['cron'] }),
  });
}

export function useRunCronNow(boxId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (cronId: string) => api<unknown>(`/v1/boxes/${boxId}/cron/${cronId}/run`, { method: 'POST', json: {} }),
    onSettled: () => qc.invalidateQueries({ queryKey: ['cron', boxId] }),
  });
}
