import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ApiKey, Organization, Whoami } from '../../../src-server/contract/identity.js';
import type { Preparation } from '../../../src-server/contract/preparation.js';
import type { SpendResponse, TokensResponse } from '../../../src-server/contract/usage.js';
import { api } from '../client.js';

interface ServiceStatus {
  version: string;
  api_version: string;
  accelerator?: unknown;
  engines?: unknown;
  /** One-time preparation (guest image) before boxes can start. */
  preparation?: Preparation;
  [k: string]: unknown;
}

export const useWhoami = () => useQuery({ queryKey: ['whoami'], queryFn: () => api<Whoami>('/v1/whoami'), staleTime: 60_000 });

/** Polled fast while the service is still preparing (guest image), slowly after. */
export const useStatus = (fast = false) =>
  useQuery({ queryKey: ['status'], queryFn: () => api<ServiceStatus>('/v1/status'), refetchInterval: (q) => (fast || q.state.data?.preparation?.ready === false ? 1500 : 15_000) });

export const useOrganization = () =>
  useQuery({ queryKey: ['organization'], queryFn: () => api<Organization>('/v1/organization'), refetchInterval: 10_000 });

export function useSetCredits() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (credits_usd_nanos: number) => api<Organization>('/v1/organization', { method: 'PATCH', json: { credits_usd_nanos } }),
    onSuccess: (org) => qc.setQueryData(['organization'], org),
  });
}

export const useApiKeys = () => useQuery({ queryKey: ['api-keys'], queryFn: () => api<{ data: ApiKey[] }>('/v1/api-keys') });

export function useCreateApiKey() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: { name: string; scope: 'organization' | 'user' }) => api<ApiKey & { secret: string }>('/v1/api-keys', { method: 'POST', json: body }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['api-keys'] }),
  });
}

export function useRevokeApiKey() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<ApiKey>(`/v1/api-keys/${id}`, { method: 'DELETE' }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['api-keys'] }),
  });
}

/** Box spend and token spend over the last `days` (usage area). */
export const useSpend = (days = 30) =>
  useQuery({
    queryKey: ['spend', days],
    queryFn: () => api<SpendResponse>('/v1/boxes/spend', { query: { from: new Date(Date.now() - days * 86400_000).toISOString() } }),
    refetchInterval: 30_000,
    retry: false,
  });

export const useTokenSpend = (days = 30) =>
  useQuery({
    queryKey: ['token-spend', days],
    queryFn: () => api<TokensResponse>('/v1/usage/tokens', { query: { from: new Date(Date.now() - days * 86400_000).toISOString() } }),
    refetchInterval: 30_000,
    retry: false,
  });
