import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { BoxInferenceBudget } from '@box/contract/usage';
import { api } from '../client.js';

/** A box's inference token budget and the tokens it has used (refreshed while shown: boxes spend as they run). */
export const useBoxBudget = (boxId: string) =>
  useQuery({
    queryKey: ['box-budget', boxId],
    queryFn: () => api<BoxInferenceBudget>(`/v1/boxes/${boxId}/inference-budget`),
    refetchInterval: 5000,
  });

/** Sets the budget (null = unlimited). */
export function useSetBoxBudget(boxId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (tokens: number | null) => api<unknown>(`/v1/boxes/${boxId}/inference-budget`, { method: 'PUT', json: { inference_budget_tokens: tokens } }),
    onSettled: () => Promise.all([qc.invalidateQueries({ queryKey: ['box-budget', boxId] }), qc.invalidateQueries({ queryKey: ['boxes'] })]),
  });
}
