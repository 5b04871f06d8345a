import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Box, Checkpoint } from '../../../src-server/contract/boxes.js';
import type { App } from '../../../src-server/contract/identity.js';
import { api, type Page } from '../client.js';

export type { Box, Checkpoint };

/** Statuses that change on their own: poll faster while a box is in one of them. */
const TRANSIENT = new Set(['creating', 'terminating']);

export const useBoxes = (query: { app_id?: string; status?: string; search?: string; offset?: number } = {}) =>
  useQuery({
    queryKey: ['boxes', query],
    queryFn: () => api<Page<Box>>('/v1/boxes', { query: { ...query, limit: 50 } }),
    refetchInterval: (q) => (q.state.data?.data.some((b) => TRANSIENT.has(b.status)) ? 1000 : 4000),
  });

export const useBox = (id: string | undefined) =>
  useQuery({
    queryKey: ['boxes', id],
    queryFn: () => api<Box>(`/v1/boxes/${id}`),
    enabled: Boolean(id),
    refetchInterval: (q) => (q.state.data && TRANSIENT.has(q.state.data.status) ? 1000 : 4000),
  });

export interface CreateBoxInput {
  app_name: string;
  name: string;
  image?: string;
  size: 's' | 'm' | 'l';
  volume_mounts: { volume_id: string; mount_path: string }[];
  http_policy_id?: string | null;
  ingress_ports: number[];
  /** Tokens the box may use through the inference gateway over its life; absent = unlimited. */
  inference_budget_tokens?: number;
}

/** Find-or-create the app by name, then create the box in it (answers once running or failed). */
export function useCreateBox() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async ({ app_name, ...rest }: CreateBoxInput) => {
      const app = await api<App>('/v1/apps/find', { method: 'POST', json: { name: app_name, mint_if_missing: true } });
      const body = { ...rest, app_id: app.id, image: rest.image || undefined, http_policy_id: rest.http_policy_id || undefined };
      return api<Box>('/v1/boxes', { method: 'POST', json: body, headers: { 'Idempotency-Key': crypto.randomUUID() } });
    },
    onSettled: () => qc.invalidateQueries({ queryKey: ['boxes'] }),
  });
}

type BoxAction = 'pause' | 'resume' | 'sleep' | 'reboot' | 'terminate' | 'upgrade';

export function useBoxAction() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, action }: { id: string; action: BoxAction }) => api<unknown>(`/v1/boxes/${id}/${action}`, { method: 'POST', json: {} }),
    onSettled: () => qc.invalidateQueries({ queryKey: ['boxes'] }),
  });
}

export function useCheckpointBox() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, name }: { id: string; name?: string }) => api<Checkpoint>(`/v1/boxes/${id}/checkpoint`, { method: 'POST', json: name ? { name } : {} }),
    onSettled: () => qc.invalidateQueries({ queryKey: ['checkpoints'] }),
  });
}

export function useForkBox() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, name }: { id: string; name: string }) => api<unknown>(`/v1/boxes/${id}/fork`, { method: 'POST', json: { name } }),
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
    mutationFn: (body: { checkpoint_id: string; name: string }) => api<Box>('/v1/boxes/from_checkpoint', { method: 'POST', json: body }),
    onSettled: () => {
      void qc.invalidateQueries({ queryKey: ['boxes'] });
      void qc.invalidateQueries({ queryKey: ['lineage'] });
    },
  });
}

export const useCheckpoints = (boxId?: string) =>
  useQuery({
    queryKey: ['checkpoints', boxId ?? 'all'],
    queryFn: async () => (await api<{ data: Checkpoint[] }>('/v1/box-checkpoints', { query: { box_id: boxId } })).data,
  });

export interface LineageEdge {
  box_id: string;
  parent_box_id: string | null;
  checkpoint_id: string | null;
}

export const useLineage = () =>
  useQuery({ queryKey: ['lineage'], queryFn: async () => (await api<{ data: LineageEdge[] }>('/v1/box-lineage')).data, retry: false });

import type { MetricPoint } from '../../../src-server/contract/usage.js';

export const useBoxMetrics = (id: string, range: string) =>
  useQuery({
    queryKey: ['boxes', id, 'metrics', range],
    queryFn: () => api<{ range: string; data: MetricPoint[] }>(`/v1/boxes/${id}/metrics`, { query: { range } }),
    refetchInterval: 10_000,
    retry: false,
  });

export type { EgressLogEntry as EgressEntry } from '../../../src-server/contract/network.js';

