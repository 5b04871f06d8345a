import type { IncomingMessage } from 'node:http';
import type { BoxAccess, BoxRecord } from '../../boxes/ports.js';
import type { BoxService, ExecService } from '../../boxes/module.js';
import type { CodeService } from '../../code/module.js';
import type { CodeExecution } from '@box/contract/code';
import type { DesktopAction } from '@box/contract/desktop';
import type { DesktopService } from '../../desktop/module.js';
import type { AppsService } from '../../../identity/module.js';
import type { Principal } from '../../../kernel/principal.js';
import { Unavailable } from '../../../kernel/domain-errors.js';

/** What one shell command gave. */
interface CommandOutcome {
  stdout: string;
  stderr: string;
  exitCode: number | null;
  timedOut: boolean;
}

/**
 * What the hosted tools need of the boxes and code areas (hosted-loop.ts): the same access
 * check as the API, box creation charged to the caller, a Python run, a command.
 */
export interface HostedBoxPort {
  /** A live box of the caller's organization the caller may operate (`exec`), else 404/403 as the API answers. */
  boxFor(auth: Principal, boxId: string): Promise<BoxRecord>;
  get(boxId: string): Promise<BoxRecord | undefined>;
  /** A new box for the caller (default image, or `desktop` for the computer tool), in its organization's `hosted-tools` app, auto-sleeping. */
  create(auth: Principal, name: string, image?: 'debian' | 'desktop'): Promise<BoxRecord>;
  /** The computer tool (issue 37): runs the actions on the box's screen (after a pause for `wait`), then answers a PNG of it. */
  computer(box: BoxRecord, actions: DesktopAction[], wait: boolean): Promise<Buffer>;
  runCode(box: BoxRecord, code: string, timeoutS: number): Promise<CodeExecution>;
  exec(box: BoxRecord, command: string, timeoutS: number): Promise<CommandOutcome>;
  /** Live boxes of the organizations' `hosted-tools` apps (the reaper's). */
  hostedBoxes(): Promise<BoxRecord[]>;
  terminate(box: BoxRecord): Promise<unknown>;
}

/** The app that holds the boxes hosted tools make (`container: auto`). */
const HOSTED_APP = 'hosted-tools';
/** Seconds of idleness before a hosted box sleeps. */
const SLEEP_AFTER_S = 60;

/** No override header: a hosted tool operates a box only as its creator may (the `X-Box-Override-Reason` path is the API's). */
const NO_OVERRIDE = { headers: {}, method: 'POST', url: '/v1/responses' } as unknown as IncomingMessage;

export function hostedBoxPort(deps: {
  boxes: BoxService;
  execs: ExecService;
  code: CodeService;
  access: BoxAccess;
  apps: AppsService;
  desktop: Pick<DesktopService, 'act' | 'screenshot' | 'settledScreenshot'>;
}): HostedBoxPort {
  const { boxes, execs, code, access, apps, desktop } = deps;
  return {
    boxFor: async (auth, boxId) => await access.boxFor(NO_OVERRIDE, auth, boxId, 'exec'),
    get: async (id) => await boxes.get(id),
    async create(auth, name, image = 'debian') {
      const app = await apps.find(auth.orgId, HOSTED_APP, true);
      const made = await boxes.create(auth, {
        app_id: app.id,
        name,
        image,
        size: 's',
        visibility: 'org',
        ingress_ports: [],
        volume_mounts: [],
        auto_sleep: { automatic: true, min_seconds_before_sleep: SLEEP_AFTER_S },
      });
      if (!made.started) throw new Unavailable(`The box for the hosted tool (${made.box.box_id}) did not start: ${made.reason}`, { code: 'container_failed' });
      return (await boxes.get(made.box.box_id))!;
    },
    async computer(box, actions, wait) {
      for (const a of actions) await desktop.act(box, a);
      if (wait) await sleep(1000);
      return actions.length ? desktop.settledScreenshot(box) : desktop.screenshot(box);
    },
    runCode: (box, src, timeoutS) => code.run(box, { code: src, language: 'python', timeout: timeoutS }),
    async exec(box, command, timeoutS) {
      const s = await execs.start(box, { command: ['/bin/sh', '-c', command], timeout: timeoutS });
      const r = await execs.wait(box.box_id, s.id);
      return { stdout: r.stdout, stderr: r.stderr, exitCode: r.return_code, timedOut: r.status === 'timed_out' };
    },
    async hostedBoxes() {
      const out: BoxRecord[] = [];
      for (const b of await boxes.live()) {
        try {
          if ((await apps.find(b.org_id, HOSTED_APP, false)).id === b.app_id) out.push(b);
        } catch {
          /* its app is gone: not a hosted box */
        }
      }
      return out;
    },
    terminate: (box) => boxes.terminate(box),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
