import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { BodyOf } from '@box/contract/call';
import { call } from '../client.js';

export type { HttpPolicy } from '@box/contract/policies';

export const usePolicies = () =>
  useQuery({
    queryKey: ['policies'],
    queryFn: async () => (await call('GET /v1/http-policies', { query: { limit: 100 } })).data,
  });

/** Ready-made documents (deny all, allow all logged, registries, gateway only) for a new policy. */
export const usePolicyPresets = () =>
  useQuery({
    queryKey: ['policy-presets'],
    queryFn: async () => (await call('GET /v1/http-policies/presets')).data,
    staleTime: Infinity,
  });

/** The editor's parsed JSON: the service checks it (400 naming the field). */
type Doc = BodyOf<'POST /v1/http-policies'>['document'];

export function useSavePolicy() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, name, document }: { id?: string; name: string; document: unknown }) =>
      id
        ? call('PATCH /v1/http-policies/:id', { params: { id }, body: { name, document: document as Doc } })
        : call('POST /v1/http-policies', { body: { name, document: document as Doc } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['policies'] }),
  });
}

export function useDeletePolicy() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => call('DELETE /v1/http-policies/:id', { params: { id } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['policies'] }),
  });
}

/** Attach (policy id) or detach (null) a box's egress policy. */
export function useAttachPolicy() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async ({ boxId, policyId }: { boxId: string; policyId: string | null }) => {
      if (policyId) await call('PUT /v1/boxes/:box_id/http-policy', { params: { box_id: boxId }, body: { policy_id: policyId } });
      else await call('DELETE /v1/boxes/:box_id/http-policy', { params: { box_id: boxId } });
    },
    onSettled: () => qc.invalidateQueries({ queryKey: ['boxes'] }),
  });
}
