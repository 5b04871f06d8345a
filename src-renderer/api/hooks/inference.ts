import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { call } from '../client.js';

export const useModels = () => useQuery({ queryKey: ['models'], queryFn: async () => (await call('GET /v1/models')).data, retry: false });

export const useDeliveries = (responseId: string | null) =>
  useQuery({
    queryKey: ['deliveries', responseId],
    queryFn: () => call('GET /v1/responses/:response_id/deliveries', { params: { response_id: responseId! } }),
    enabled: Boolean(responseId),
    refetchInterval: 1500,
    retry: false,
  });

export function useRedeliver() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (responseId: string) => call('POST /v1/responses/:response_id/deliveries/redeliver', { params: { response_id: responseId } }),
    onSettled: (_d, _e, id) => qc.invalidateQueries({ queryKey: ['deliveries', id] }),
  });
}

export const useEngines = () => useQuery({ queryKey: ['engines'], queryFn: async () => (await call('GET /v1/engines')).data, retry: false });
