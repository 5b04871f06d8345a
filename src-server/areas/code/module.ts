import type { Preparation } from '@box/contract/preparation';
import type { AppBase } from '../../platform/app-context.js';
import type { Area } from '../../platform/area.js';
import type { BoxAccess } from '../boxes/ports.js';
import type { BoxService } from '../boxes/module.js';
import { codeRoutes } from './code-routes.js';
import { CodeService } from './code-service.js';
import type { CodeBoxes } from './ports.js';
import { codeWarmup } from './template-warmup.js';

export type { CodeService };

/** The code interpreter (issue 25): contexts and runs, served by a daemon inside each box. */
export function codeArea(app: AppBase, deps: { boxes: BoxService; access: BoxAccess }) {
  const b = deps.boxes;
  const port: CodeBoxes = {
    ensureRunning: async (box) => (box.status === 'running' ? Promise.resolve(box) : await b.ensureRunning(box, 'exec')),
    touch: async (id) => await b.touch(id),
    hold: (id) => b.hooks.holds.hold(id),
    agent: (id) => b.agent(id),
    commandEnv: (box) => ({ env: b.guestSetup.env(box), user: b.guestSetup.defaults(box).user }),
    onGone: (fn) => b.hooks.onGone(fn),
  };
  // every template holds the daemon and a started Python kernel (template-warmup.ts)
  // (BOX_CODE_WARM=0 leaves it out: the test suite's other VM tests do, to save CI time)
  if (app.config.env.codeWarm !== false) b.addTemplateWarmup(codeWarmup);
  // the code layer's preparation stage (boxes/preparation.ts, in GET /v1/status): what a
  // box started from the image's base is told when it asks for a kernel it lacks
  const codeStage = () => {
    for (const provide of app.statusProviders) {
      const p = provide().preparation as Preparation | undefined;
      if (p) return p.stages.find((s) => s.name === 'code');
    }
    return undefined;
  };
  const code = new CodeService(port, codeStage);
  const area: Area = { name: 'code', routes: codeRoutes(code, deps.access) };
  return { code, area };
}
