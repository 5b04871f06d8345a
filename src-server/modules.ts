import type { AreaModule } from './app-context.js';
import { boxesModule } from './boxes/module.js';
import { PreparationTracker } from './boxes/preparation.js';
import { coreModule } from './core/module.js';
import { cronModule } from './cron/module.js';
import { inboxModule } from './inbox/module.js';
import { inferenceModule } from './inference/module.js';
import { networkModule } from './network/module.js';
import { policiesModule } from './policies/module.js';
import { QemuBoxRuntime } from './runtime/qemu-box-runtime.js';
import { secretsModule } from './secrets/module.js';
import { sshModule } from './ssh/module.js';
import { usageModule } from './usage/module.js';
import { volumesModule } from './volumes/module.js';

/** Every area of the service, in install order. */
export function defaultModules(): AreaModule[] {
  // The first box waits for the guest image: its progress goes to GET /v1/status (preparation).
  const preparation = new PreparationTracker();
  const runtime = (dataDir: string) => new QemuBoxRuntime(dataDir, { onImageProgress: (p) => preparation.onImage(p) });
  return [coreModule, volumesModule, policiesModule, secretsModule, sshModule, boxesModule(runtime, preparation), networkModule(), cronModule, inboxModule, inferenceModule, usageModule];
}
