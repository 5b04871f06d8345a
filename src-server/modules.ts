import type { AreaModule } from './app-context.js';
import { coreModule } from './core/module.js';
import { inboxModule } from './inbox/module.js';

/** Every area of the service, in install order. */
export function defaultModules(): AreaModule[] {
  return [coreModule, inboxModule];
}
