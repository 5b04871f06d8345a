import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import type { Box, Checkpoint, LineageEdge } from '@box/contract/boxes';
import type { BodyOf } from '@box/contract/call';
import { ApiError, call } from '../client.js';

export type { Box, Checkpoint };

/** Statuses that change on their own: poll faster while a box is in one of them. */
const TRANSIENT = new Set(['creating', 'terminating']);

export const useBoxes = (query: { app_id?: string; status?: string; search?: string; offset?: number; limit?: number } = {}) =>
  useQuery({
    queryKey: ['boxes', query],
    queryFn: () => call('GET /v1/boxes', { query: { limit: 50, ...query } }),
    refetchInterval: (q) => (q.state.data?.data.some((b) => TRANSIENT.has(b.status)) ? 1000 : 4000),
  });

export const useBox = (id: string | undefined) =>
  useQuery({
    queryKey: ['boxes', id],
    queryFn: () => call('GET /v1/boxes/:box_id', { params: { box_id: id! } }),
    enabled: Boolean(id),
    refetchInterval: (q) => (q.state.data && TRANSIENT.has(q.state.data.status) ? 1000 : 4000),
  });

/** The create body, with the app named (found or created first) instead of its id. */
type CreateBody = BodyOf<'POST /v1/boxes'>;
export type CreateBoxInput = Omit<CreateBody, 'app_id' | 'size' | 'volume_mounts' | 'ingress_ports'> &
  Required<Pick<CreateBody, 'size' | 'volume_mounts' | 'ingress_ports'>> & { app_name: string };

/** Find-or-create the app by name, then create the box in it (answers once running or failed). */
export function useCreateBox() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async ({ app_name, ...rest }: CreateBoxInput) => {
      // The app's "name" is not the box's: its 400s are moved to `app_name` (the dialog's App field).
      const app = await call('POST /v1/apps/find', { body: { name: app_name, mint_if_missing: true } }).catch((e: unknown) => {
        if (!(e instanceof ApiError) || e.param !== 'name') throw e;
        throw new ApiError(
          e.status,
          e.message.replace(/^Name\b/, 'App name').replace(/^Invalid name:/, 'Invalid app name:'),
          e.type,
          'app_name',
          e.code,
          e.body,
        );
      });
      const body = { ...rest, app_id: app.id, image: rest.image || undefined, http_policy_id: rest.http_policy_id || undefined };
      return call('POST /v1/boxes', { body, headers: { 'Idempotency-Key': crypto.randomUUID() } });
    },
    onSettled: () => qc.invalidateQueries({ queryKey: ['boxes'] }),
  });
}

type BoxAction = 'pause' | 'resume' | 'sleep' | 'reboot' | 'terminate' | 'upgrade';

export function useBoxAction() {
  const qc = useQueryClient();
  return useMutation({
    // One call site for six operations that take no body: the key is one of them.
    mutationFn: ({ id, action }: { id: string; action: BoxAction }) =>
      call(`POST /v1/boxes/:box_id/${action}` as 'POST /v1/boxes/:box_id/pause', { params: { box_id: id } }),
    onSettled: () => qc.invalidateQueries({ queryKey: ['boxes'] }),
  });
}

export function useCheckpointBox() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, name }: { id: string; name?: string }) =>
      call('POST /v1/boxes/:box_id/checkpoint', { params: { box_id: id }, body: name ? { name } : {} }),
    onSettled: () => qc.invalidateQueries({ queryKey: ['checkpoints'] }),
  });
}

export function useForkBox() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, name }: { id: string; name: string }) => call('POST /v1/boxes/:box_id/fork', { params: { box_id: id }, body: { name } }),
    onSettled: () => {
      void qc.invalidateQueries({ queryKey: ['boxes'] });
      void qc.invalidateQueries({ queryKey: ['lineage'] });
      void qc.invalidateQueries({ queryKey: ['checkpoints'] });
    },
  });
}

export function useRestoreCheckpoint() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: { checkpoint_id: string; name: string }) => call('POST /v1/boxes/from_checkpoint', { body }),
    onSettled: () => {
      void qc.invalidateQueries({ queryKey: ['boxes'] });
      void qc.invalidateQueries({ queryKey: ['lineage'] });
    },
  });
}

const useCheckpoints = (boxId?: string) =>
  useQuery({
    queryKey: ['checkpoints', boxId ?? 'all'],
    queryFn: async () => (await call('GET /v1/box-checkpoints', { query: { box_id: boxId } })).data,
  });

/**
 * The organization's checkpoints, read again when `box` stands on one they do not list yet (a
 * checkpoint taken elsewhere, by the CLI, an SDK or a fork: the box is polled, the list is not).
 */
export function useCheckpointsOf(box: Pick<Box, 'on_checkpoint_id'>) {
  const cps = useCheckpoints();
  const missing = Boolean(box.on_checkpoint_id && cps.data && !cps.data.some((c) => c.checkpoint_id === box.on_checkpoint_id));
  const { refetch } = cps;
  useEffect(() => {
    if (missing) void refetch();
  }, [missing, box.on_checkpoint_id, refetch]);
  return cps;
}

export type { LineageEdge };

export const useLineage = () => useQuery({ queryKey: ['lineage'], queryFn: async () => (await call('GET /v1/box-lineage')).data, retry: false });

export const useBoxMetrics = (id: string, range: string) =>
  useQuery({
    queryKey: ['boxes', id, 'metrics', range],
    queryFn: () => call('GET /v1/boxes/:box_id/metrics', { params: { box_id: id }, query: { range } }),
    refetchInterval: 10_000,
    retry: false,
  });

export type { EgressLogEntry as EgressEntry } from '@box/contract/network';
