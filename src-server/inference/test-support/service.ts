import { coreModule } from '../../core/module.js';
import { startTestService, type TestService } from '../../test-support/harness.js';
import type { StartOptions } from '../../service.js';
import { inferenceModule } from '../module.js';

/** The real service with the core and inference areas only. */
export function startInferenceService(opts: Partial<StartOptions> = {}): Promise<TestService> {
  return startTestService({ ...opts, modules: [coreModule, inferenceModule] });
}
