import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { SecretMeta } from '@box/contract/secrets';
import type { BodyOf } from '@box/contract/call';
import { call } from '../client.js';

export type { SecretMeta };

export const useSecrets = () => useQuery({ queryKey: ['secrets'], queryFn: () => call('GET /v1/secrets', { query: { limit: 100 } }) });

/** Policies whose header rewrites name this secret. */
export const useSecretPolicies = (name: string) =>
  useQuery({ queryKey: ['secrets', name, 'policies'], queryFn: () => call('GET /v1/secrets/:name/policies', { params: { name } }) });

export function useSetSecret() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ name, value }: { name: string; value: string }) => call('PUT /v1/secrets/:name', { params: { name }, body: { value } }),
    onSettled: () => qc.invalidateQueries({ queryKey: ['secrets'] }),
  });
}

export function useDeleteSecret() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => call('DELETE /v1/secrets/:name', { params: { name } }),
    onSettled: () => qc.invalidateQueries({ queryKey: ['secrets'] }),
  });
}

export const useSshCa = () => useQuery({ queryKey: ['ssh-ca'], queryFn: () => call('GET /v1/ssh/ca') });

export const useIssueCertificate = () =>
  useMutation({
    mutationFn: (body: BodyOf<'POST /v1/ssh/certificate'>) => call('POST /v1/ssh/certificate', { body }),
  });
