import type { MetricRange } from '../contract/usage.js';
import type { MetricsRepo } from './metrics-repo.js';

/** A box's sampled CPU, memory and disk use as the API reads it (the sampler writes it). */
export class BoxMetricsService {
  constructor(private repo: MetricsRepo) {}

  /** At most 300 points over `range`, ending now; never wakes the box. */
  async series(boxId: string, range: MetricRange) {
    return await this.repo.series(boxId, range, Date.now());
  }
}
