import { invalid } from '../../kernel/domain-errors.js';
import type { components } from '@box/contract/e2b-openapi.gen';

/** One of Box's per-box meter samples (usage/: the sampler, every `metricsEveryMs`). */
export interface MeterSample {
  /** Epoch milliseconds. */
  at: number;
  /** vCPUs busy (0.5 = half of one vCPU). */
  cpu: number | null;
  /** The VM's resident memory in bytes. */
  mem: number | null;
  /** Bytes the box's disk holds. */
  disk: number | null;
}

/** The box sizes a metric is relative to. */
interface Sizes {
  vcpu_count: number;
  memory_mib: number;
  disk_gib: number;
}

/** E2B's SandboxMetric, as E2B's OpenAPI document defines it (generated). */
type E2BMetric = components['schemas']['SandboxMetric'];

const MIB = 1024 * 1024;

/**
 * A Box meter sample in E2B's shape and units: CPU as a percentage of the sandbox's vCPUs
 * (E2B's `cpuUsedPct`, 0 to 100), memory and disk in bytes against the box's size. Box
 * does not measure the guest's page cache, so `memCache` is 0; `memUsed` is the VM's
 * resident memory, which includes it.
 */
export function e2bMetric(s: MeterSample, box: Sizes): E2BMetric {
  return {
    timestamp: new Date(s.at).toISOString(),
    timestampUnix: Math.floor(s.at / 1000),
    cpuCount: box.vcpu_count,
    cpuUsedPct: s.cpu === null ? 0 : Math.round((s.cpu / box.vcpu_count) * 10000) / 100,
    memUsed: s.mem ?? 0,
    memTotal: box.memory_mib * MIB,
    memCache: 0,
    diskUsed: s.disk ?? 0,
    diskTotal: box.disk_gib * 1024 * MIB,
  };
}

/**
 * The window of `GET /sandboxes/{id}/metrics` in epoch milliseconds: E2B's `start`/`end` are
 * Unix seconds; without them, from the sandbox's start to now.
 */
export function metricsWindow(q: { start?: number; end?: number }, startedAt: string, now = Date.now()): { from: number; to: number } {
  const from = q.start === undefined ? Date.parse(startedAt) : q.start * 1000;
  const to = q.end === undefined ? now : q.end * 1000 + 999;
  if (to < from) throw invalid('end must not be before start', 'end');
  return { from, to };
}
