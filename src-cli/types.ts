/**
 * Shapes the CLI reads. Box and checkpoint come from the shared contract; the areas
 * whose contract files are not shared yet are written here from docs/api-surface.md.
 */
export type { Box, Checkpoint } from '../src-server/contract/boxes.js';
export type { ExecEvent } from '../src-server/contract/exec.js';
export type { CronJob } from '../src-server/contract/cron.js';
export type { Page } from '../src-server/contract/common.js';

export interface Volume {
  volume_id: string;
  name: string;
  backend: string;
  status: 'ready' | 'deleted';
  created_at: string;
  updated_at: string;
}

export interface Entry {
  name: string;
  type: 'file' | 'directory' | 'symlink' | 'other';
  size: number;
  modified_time: number;
  mode: number;
}

export type { HttpPolicy } from '../src-server/contract/policies.js';

export interface Secret {
  name: string;
  created_at?: string;
  updated_at?: string;
  [k: string]: unknown;
}

export interface Listener {
  guest_port: number;
  protocol: 'http' | 'tcp';
  route_status: string;
  public_url: string | null;
  public_host: string | null;
  public_port: number | null;
  alias_url?: string | null;
}

export interface App {
  app_id: string;
  app_name: string;
  box_count: number;
  running_count: number;
  paused_count: number;
  sleeping_count: number;
  failed_count: number;
  cpu_requested_vcpu: number;
  memory_requested_bytes: number;
  disk_used_bytes: number;
}

export interface ApiKey {
  id: string;
  name: string;
  scope: string;
  created_at: string;
  last_used_at?: string | null;
  revoked_at?: string | null;
  secret?: string;
  [k: string]: unknown;
}
