import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { SecretMeta } from '../../../src-server/contract/secrets.js';
import type { SshCa, SshCertificate } from '../../../src-server/contract/ssh.js';
import { api, type Page } from '../client.js';

export type { SecretMeta };

export const useSecrets = () => useQuery({ queryKey: ['secrets'], queryFn: () => api<Page<SecretMeta>>('/v1/secrets', { query: { limit: 100 } }) });

/** Policies whose header rewrites name this secret. */
export const useSecretPolicies = (name: string) =>
  useQuery({ queryKey: ['secrets', name, 'policies'], queryFn: () => api<{ data: Array<{ id: string; name: string }> }>(`/v1/secrets/${encodeURIComponent(name)}/policies`) });

export function useSetSecret() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ name, value }: { name: string; value: string }) => api<SecretMeta>(`/v1/secrets/${encodeURIComponent(name)}`, { method: 'PUT', json: { value } }),
    onSettled: () => qc.invalidateQueries({ queryKey: ['secrets'] }),
  });
}

export function useDeleteSecret() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => api<SecretMeta>(`/v1/secrets/${encodeURIComponent(name)}`, { method: 'DELETE' }),
    onSettled: () => qc.invalidateQueries({ queryKey: ['secrets'] }),
  });
}

export const useSshCa = () => useQuery({ queryKey: ['ssh-ca'], queryFn: () => api<SshCa>('/v1/ssh/ca') });

export const useIssueCertificate = () =>
  useMutation({
    mutationFn: (body: { public_key: string; principals?: string[]; ttl_seconds?: number }) => api<SshCertificate>('/v1/ssh/certificate', { method: 'POST', json: body }),
  });
