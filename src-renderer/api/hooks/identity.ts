import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { BodyOf } from '@box/contract/call';
import { call } from '../client.js';

export const useWhoami = () => useQuery({ queryKey: ['whoami'], queryFn: () => call('GET /v1/whoami'), staleTime: 60_000 });

/** Polled fast while the service is still preparing (guest image), slowly after. */
export const useStatus = (fast = false) =>
  useQuery({
    queryKey: ['status'],
    queryFn: () => call('GET /v1/status'),
    refetchInterval: (q) => (fast || q.state.data?.preparation?.ready === false ? 1500 : 15_000),
  });

export const useOrganization = () => useQuery({ queryKey: ['organization'], queryFn: () => call('GET /v1/organization'), refetchInterval: 10_000 });

export function useSetCredits() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (credits_usd_nanos: number) => call('PATCH /v1/organization', { body: { credits_usd_nanos } }),
    onSuccess: (org) => qc.setQueryData(['organization'], org),
  });
}

export const useApiKeys = () => useQuery({ queryKey: ['api-keys'], queryFn: () => call('GET /v1/api-keys') });

export function useCreateApiKey() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: BodyOf<'POST /v1/api-keys'>) => call('POST /v1/api-keys', { body }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['api-keys'] }),
  });
}

export function useRevokeApiKey() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => call('DELETE /v1/api-keys/:key_id', { params: { key_id: id } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['api-keys'] }),
  });
}

/** Box spend and token spend over the last `days` (usage area). */
export const useSpend = (days = 30) =>
  useQuery({
    queryKey: ['spend', days],
    queryFn: () => call('GET /v1/boxes/spend', { query: { from: new Date(Date.now() - days * 86400_000).toISOString() } }),
    refetchInterval: 30_000,
    retry: false,
  });

export const useTokenSpend = (days = 30) =>
  useQuery({
    queryKey: ['token-spend', days],
    queryFn: () => call('GET /v1/usage/tokens', { query: { from: new Date(Date.now() - days * 86400_000).toISOString() } }),
    refetchInterval: 30_000,
    retry: false,
  });
