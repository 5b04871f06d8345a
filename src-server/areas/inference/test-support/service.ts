import { startTestService, type TestService } from '../../../test-support/harness.js';
import type { StartOptions } from '../../../service.js';

/** The real service with the core and inference areas only. */
export function startInferenceService(opts: Partial<StartOptions> = {}): Promise<TestService> {
  return startTestService({ ...opts });
}
