import type { AppBase, AppContext } from './platform/app-context.js';
import type { Area } from './platform/area.js';
import { BoxesRepo } from './areas/boxes/module.js';
import { boxesArea } from './areas/boxes/module.js';
import type { BoxRuntime } from './areas/boxes/module.js';
import type { AppsService } from './identity/module.js';
import type { AuditLog } from './identity/module.js';
import type { KeysService } from './identity/module.js';
import { coreArea } from './identity/module.js';
import { NotFound } from './kernel/domain-errors.js';
import type { OrganizationService } from './identity/module.js';
import type { SignInService } from './identity/module.js';
import { codeArea } from './areas/code/module.js';
import { desktopArea, type DesktopService } from './areas/desktop/module.js';
import type { CodeService } from './areas/code/module.js';
import { cronArea } from './areas/cron/module.js';
import { e2bArea } from './areas/e2b/module.js';
import { buildImage } from './areas/images/module.js';
import { imagesArea } from './areas/images/module.js';
import type { ImagesService } from './areas/images/module.js';
import { inboxArea } from './areas/inbox/module.js';
import { logsArea } from './areas/logs/module.js';
import { mcpArea } from './areas/mcp/module.js';
import type { ConsoleService } from './areas/logs/module.js';
import { quitArea, type QuitService } from './areas/quit/module.js';
import { inferenceArea } from './areas/inference/module.js';
import { networkArea } from './areas/network/module.js';
import { policiesArea } from './areas/policies/module.js';
import { secretsArea } from './areas/secrets/module.js';
import { sshArea } from './areas/ssh/module.js';
import { templatesArea } from './areas/templates/module.js';
import { servingArea } from './platform/serving/module.js';
import type { TemplateService } from './areas/templates/module.js';
import { usageArea } from './areas/usage/module.js';
import { volumesArea } from './areas/volumes/module.js';
import type { BoxService } from './areas/boxes/module.js';
import type { CheckpointService } from './areas/boxes/module.js';
import type { ExecService } from './areas/boxes/module.js';
import type { FilesService } from './areas/boxes/module.js';
import type { CronRunner } from './areas/cron/module.js';
import type { CronService } from './areas/cron/module.js';
import type { InboxService } from './areas/inbox/module.js';
import { HmacBoxCredentials, type BoxCredentials } from './areas/inference/module.js';
import type { InferenceArea } from './areas/inference/module.js';
import type { EgressService } from './areas/network/module.js';
import type { ListenerService } from './areas/network/module.js';
import type { Policies } from './areas/policies/module.js';
import type { SecretsService } from './areas/secrets/module.js';
import type { SshService } from './areas/ssh/module.js';
import type { MetricsSampler } from './areas/usage/module.js';
import type { UsageService } from './areas/usage/module.js';
import type { Volumes } from './areas/volumes/module.js';

/**
 * The one place the service is assembled (docs/architecture.md, "Wiring").
 *
 * Every service is built once, here, in dependency order, and handed what it needs as
 * constructor arguments: a missing dependency is a compile error, and no service reaches
 * into a shared table that may or may not be filled yet. Areas built after boxes that take
 * part in a box's life (network, cron, guest setup) register on `boxes.hooks` or
 * `boxes.guestSetup` rather than the boxes area knowing them.
 *
 * To add an area:
 *  1. In `<area>/module.ts` export `xArea(app: AppBase, deps: { ...only what it uses })`
 *     returning `{ ...its services, area: Area }` (routes, optional start/stop).
 *  2. Build it below after its dependencies; add its services to `Services` if routes or
 *     tests of other areas need them; add `area` to the `areas` list (route mount order,
 *     start order; stop runs in reverse).
 */
/** The pipeline's context plus every service: what `startService` answers (tests, headless.ts, src-main). */
export type WiredApp = AppContext & { services: Services };

export async function wire(base: AppBase, runtime: BoxRuntime): Promise<{ app: WiredApp; areas: Area[] }> {
  const core = coreArea(base);
  const volumes = volumesArea(base);
  const boxesRepo = new BoxesRepo(base.db);
  const policies = policiesArea(base, { boxesRepo });
  const secrets = secretsArea(base, { policies: policies.policies });
  const ssh = sshArea(base);
  const boxes = await boxesArea(base, runtime, { repo: boxesRepo, volumes: volumes.volumes, policies: policies.policies, apps: core.apps, audit: core.audit });
  const access = boxes.access;
  const templates = templatesArea(base, { templates: runtime.templates });
  const serving = servingArea(base, { templates: templates.templates });
  const images = imagesArea(base, { boxes: boxes.boxes, templates: templates.templates });
  const network = await networkArea(base, { boxes: boxes.boxes, secrets: secrets.secrets, policies: policies.policies, access });
  // TLS suites of the box leg follow the boxes' CPU (no AES instructions under TCG).
  void runtime.accelerator().then(
    (a) => network.egress.setBoxAccelerator(a),
    () => {},
  );
  const cron = cronArea(base, { boxes: boxes.boxes, execs: boxes.execs, access });
  const inbox = inboxArea(base);
  const usage = usageArea(base, { boxes: boxes.boxes, organization: core.organization, access });
  const boxCredentials = HmacBoxCredentials.forDataDir(base.config.dataDir);
  const code = codeArea(base, { boxes: boxes.boxes, access });
  const desktop = desktopArea(base, { boxes: boxes.boxes, access });
  const inference = inferenceArea(base, {
    usage: usage.usage,
    boxes: boxes.boxes,
    credentials: boxCredentials,
    organization: core.organization,
    access,
    execs: boxes.execs,
    code: code.code,
    apps: core.apps,
    desktop: desktop.desktop,
  });
  const logs = logsArea({ log: base.serviceLog, runtime, access });
  const quit = quitArea(base, { boxes: boxes.boxes });
  const mcp = mcpArea(base);
  const e2b = e2bArea(base, {
    boxes: {
      get: async (id) => await boxes.boxes.get(id),
      create: async (a, b) => await boxes.boxes.create(a, b),
      pause: (b) => boxes.boxes.pause(b),
      resume: (b) => boxes.boxes.resume(b),
      terminate: (b) => boxes.boxes.terminate(b),
      reboot: (b) => boxes.boxes.reboot(b),
      setHttpPolicy: (id, p) => boxes.boxes.setHttpPolicy(id, p),
    },
    checkpoints: boxes.checkpoints,
    execs: boxes.execs,
    files: boxes.files,
    apps: core.apps,
    code: code.code,
    policies: {
      create: (org, name, doc) => policies.policies.create(org, name, doc),
      update: (org, id, doc) => policies.policies.update(org, id, undefined, doc),
      delete: (org, id) => policies.policies.delete(org, id),
    },
    metrics: { samples: (id, from, to) => usage.metrics.samples(id, from, to) },
    images: {
      build: (o) => buildImage({ ...o, store: images.images.store }),
      has: async (name) => (await images.images.store.get(name)) !== undefined,
      remove: (org, name) => images.images.remove(org, name),
    },
    secrets: {
      meta: async (org, name) => {
        try {
          return await secrets.secrets.meta(org, name);
        } catch (e) {
          if (e instanceof NotFound) return undefined;
          throw e;
        }
      },
      put: (org, name, value) => secrets.secrets.put(org, name, value),
      delete: (org, name) => secrets.secrets.delete(org, name),
      list: (org, limit, offset) => secrets.secrets.list(org, limit, offset),
    },
    volumes: {
      get: async (org, id) => {
        const v = await volumes.volumes.get(org, id);
        return v?.status === 'ready' ? v : undefined;
      },
      byName: (org, name) => volumes.volumes.repo.findReady(org, name),
      list: async (org) => (await volumes.volumes.list(org, 100_000, 0)).rows,
      findOrCreate: (org, name) => volumes.volumes.findOrCreate(org, name),
      delete: (org, id) => volumes.volumes.delete(org, id),
      content: (org, id) => volumes.volumes.content(org, id),
    },
    domain: () => (network.ingress.port ? `box.localhost:${network.ingress.port}` : null),
  });
  // E2B's allowPublicTraffic: false (the sandbox's getHost addresses want its traffic access
  // token) and maskRequestHost (the Host header its server gets)
  network.ingress.sandboxTraffic = async (boxId) => {
    const row = await e2b.sandboxes.row(boxId);
    return row ? { token: row.public_traffic ? null : row.access_token, maskHost: row.mask_request_host } : null;
  };
  // E2B's lifecycle.autoResume: traffic to a getHost address resumes the paused sandbox
  network.ingress.autoResume = (boxId) => e2b.sandboxes.autoResume(boxId);

  const services: Services = {
    audit: core.audit,
    keys: core.keys,
    organization: core.organization,
    apps: core.apps,
    signIn: core.signIn,
    volumes: volumes.volumes,
    policies: policies.policies,
    secrets: secrets.secrets,
    ssh: ssh.ssh,
    boxes: boxes.boxes,
    checkpoints: boxes.checkpoints,
    execs: boxes.execs,
    files: boxes.files,
    templates: templates.templates,
    diskUsage: boxes.diskUsage,
    images: images.images,
    egress: network.egress,
    listeners: network.listeners,
    ingress: network.ingress,
    cron: cron.cron,
    cronRunner: cron.cronRunner,
    inbox: inbox.inbox,
    usage: usage.usage,
    metricsSampler: usage.metricsSampler,
    inference: inference.inference,
    boxCredentials,
    consoles: logs.consoles,
    quit: quit.quit,
    code: code.code,
    desktop: desktop.desktop,
  };
  const app: WiredApp = Object.assign(base, { boxPrincipal: inference.inference.boxPrincipal, services });
  const areas = [
    core.area({ usage: usage.usage, diskUsage: boxes.diskUsage }),
    volumes.area,
    policies.area({ boxes: boxes.boxes, access }),
    secrets.area,
    ssh.area,
    boxes.area,
    templates.area,
    serving.area,
    images.area,
    network.area,
    cron.area,
    inbox.area,
    inference.area,
    usage.area,
    logs.area,
    quit.area,
    code.area,
    desktop.area,
    mcp.area,
    e2b.area,
  ];
  return { app, areas };
}

/** Every service, as headless.ts, src-main and tests see them (`ServiceHandle.ctx.services`); all present. */
interface Services {
  /** The organization's audit log (core/). */
  audit: AuditLog;
  keys: KeysService;
  organization: OrganizationService;
  apps: AppsService;
  /** Web UI sign-in: login links and sessions. */
  signIn: SignInService;
  volumes: Volumes;
  policies: Policies;
  secrets: SecretsService;
  ssh: SshService;
  boxes: BoxService;
  checkpoints: CheckpointService;
  execs: ExecService;
  /** Files inside a box, through its guest agent. */
  files: FilesService;
  /** Warm templates boxes are cloned from (templates/). */
  templates: TemplateService;
  /** Disk bytes used by an app's boxes. */
  diskUsage: (appId: string) => Promise<number>;
  images: ImagesService;
  egress: EgressService;
  listeners: ListenerService;
  ingress: { readonly port: number };
  cron: CronService;
  cronRunner: CronRunner;
  inbox: InboxService;
  usage: UsageService;
  metricsSampler: MetricsSampler;
  inference: InferenceArea;
  /** Per-box credentials for the inference gateway (inference/box/box-credentials.ts). */
  boxCredentials: BoxCredentials;
  /** Boxes' serial consoles (logs/). */
  consoles: ConsoleService;
  /** Service settings and what quitting does to running boxes (quit/; src-main and headless.ts use it). */
  quit: QuitService;
  /** The code interpreter of boxes (code/). */
  code: CodeService;
  /** Computer use on desktop boxes (desktop/). */
  desktop: DesktopService;
}
