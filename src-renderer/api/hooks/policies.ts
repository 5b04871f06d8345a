import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Page } from '../client.js';

export type { HttpPolicy } from '../../../src-server/contract/policies.js';
import type { HttpPolicy } from '../../../src-server/contract/policies.js';

export const usePolicies = () =>
  useQuery({
    queryKey: ['policies'],
    queryFn: async () => (await api<Page<HttpPolicy> | { data: HttpPolicy[] }>('/v1/http-policies', { query: { limit: 100 } })).data,
  });

interface PolicyPreset {
  id: string;
  name: string;
  description: string;
  document: Record<string, unknown>;
}

/** Ready-made documents (deny all, allow all logged, registries, gateway only) for a new policy. */
export const usePolicyPresets = () =>
  useQuery({
    queryKey: ['policy-presets'],
    queryFn: async () => (await api<{ data: PolicyPreset[] }>('/v1/http-policies/presets')).data,
    staleTime: Infinity,
  });

export function useSavePolicy() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, name, document }: { id?: string; name: string; document: unknown }) =>
      id
        ? api<HttpPolicy>(`/v1/http-policies/${id}`, { method: 'PATCH', json: { name, document } })
        : api<HttpPolicy>('/v1/http-policies', { method: 'POST', json: { name, document } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['policies'] }),
  });
}

export function useDeletePolicy() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<unknown>(`/v1/http-policies/${id}`, { method: 'DELETE' }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['policies'] }),
  });
}

/** Attach (policy id) or detach (null) a box's egress policy. */
export function useAttachPolicy() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ boxId, policyId }: { boxId: string; policyId: string | null }) =>
      policyId
        ? api<unknown>(`/v1/boxes/${boxId}/http-policy`, { method: 'PUT', json: { policy_id: policyId } })
        : api<unknown>(`/v1/boxes/${boxId}/http-policy`, { method: 'DELETE' }),
    onSettled: () => qc.invalidateQueries({ queryKey: ['boxes'] }),
  });
}
