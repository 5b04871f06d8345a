import type { AreaModule } from './app-context.js';
import { boxesModule } from './boxes/module.js';
import { coreModule } from './core/module.js';
import { cronModule } from './cron/module.js';
import { inboxModule } from './inbox/module.js';
import { inferenceModule } from './inference/module.js';
import { networkModule } from './network/module.js';
import { QemuBoxRuntime } from './runtime/qemu-box-runtime.js';
import { usageModule } from './usage/module.js';

/** Every area of the service, in install order. */
export function defaultModules(): AreaModule[] {
  return [coreModule, boxesModule((dataDir) => new QemuBoxRuntime(dataDir)), networkModule(), cronModule, inboxModule, inferenceModule, usageModule];
}
