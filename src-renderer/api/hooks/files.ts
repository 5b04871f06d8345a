import { useQuery } from '@tanstack/react-query';
import type { DirectoryListing } from '../../../src-server/contract/volumes.js';
import { api } from '../client.js';

/** A box's directory (absolute path); listing a sleeping box wakes it. */
export const useBoxDirectory = (boxId: string, path: string) =>
  useQuery({
    queryKey: ['boxes', boxId, 'dir', path],
    queryFn: () => api<DirectoryListing>(`/v1/boxes/${boxId}/directories`, { query: { path } }),
    enabled: Boolean(boxId),
  });

export const boxFileUrl = (boxId: string, path: string) => `/v1/boxes/${boxId}/files?path=${encodeURIComponent(path)}`;
