import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { BodyOf } from '@box/contract/call';
import { call } from '../client.js';

export type { CronJob } from '@box/contract/cron';

export const PAGE_SIZE = 20;

export const useCronJobs = (boxId: string, offset: number) =>
  useQuery({
    queryKey: ['cron', boxId, offset],
    queryFn: () => call('GET /v1/boxes/:box_id/cron', { params: { box_id: boxId }, query: { limit: PAGE_SIZE, offset } }),
    enabled: Boolean(boxId),
    refetchInterval: 15_000,
  });

/** Every cron job of the organization, across boxes (the service answers them all at once). */
export const useAllCronJobs = (enabled: boolean) =>
  useQuery({ queryKey: ['cron', 'all'], queryFn: async () => (await call('GET /v1/cron')).data, enabled, refetchInterval: 15_000 });

export const useCronRuns = (boxId: string, cronId: string | null) =>
  useQuery({
    queryKey: ['cron', boxId, cronId, 'runs'],
    queryFn: () => call('GET /v1/boxes/:box_id/cron/:cron_id/runs', { params: { box_id: boxId, cron_id: cronId! } }),
    enabled: Boolean(cronId),
    retry: false,
    refetchInterval: 5000,
  });

type CreateCronInput = BodyOf<'POST /v1/boxes/:box_id/cron'>;

export function useCreateCron(boxId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateCronInput) => call('POST /v1/boxes/:box_id/cron', { params: { box_id: boxId }, body }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['cron'] }),
  });
}

export function useDeleteCron(boxId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (cronId: string) => call('DELETE /v1/boxes/:box_id/cron/:cron_id', { params: { box_id: boxId, cron_id: cronId } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['cron'] }),
  });
}

export function useRunCronNow(boxId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (cronId: string) => call('POST /v1/boxes/:box_id/cron/:cron_id/run', { params: { box_id: boxId, cron_id: cronId } }),
    // Every list of jobs (this box's and all boxes') shows the new last run.
    onSettled: () => qc.invalidateQueries({ queryKey: ['cron'] }),
  });
}
