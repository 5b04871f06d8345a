import crypto from 'node:crypto';
import { conflict, Failed, invalid, notFound } from '../../kernel/domain-errors.js';
import { installMcpNotice } from './mcp-gateway.js';
import { SandboxPolicies, type E2BNetwork } from './network-rules.js';
import { boxForTemplate } from './template-boxes.js';
import type { AppsPort, BoxesPort, BoxRecord, CheckpointsPort, FilesPort, NewBox, PoliciesPort, Principal } from './ports.js';
import { metadataFilter, pageOf, type PageQuery } from './sandbox-page.js';
import type { SandboxesRepo, SandboxRow } from './sandboxes-repo.js';
import { InFlight } from '../../kernel/util/in-flight.js';

/** The envd version E2B's SDK reads from create/connect to pick its features (see README "Coming from E2B"). */
export const ENVD_VERSION = '0.6.4';
const DEFAULT_TIMEOUT_S = 300;
const MAX_TIMEOUT_S = 86_400;
const E2B_APP = 'e2b';
type SandboxState = 'running' | 'paused';

interface CreateSandbox {
  templateID?: string;
  timeout?: number;
  metadata?: Record<string, string>;
  envVars?: Record<string, string>;
  autoPause?: boolean;
  network?: E2BNetwork;
  mcp?: unknown;
  keepMemory?: boolean; // `lifecycle.keepMemory` (E2B's autoPauseMemory): false pauses keep only the filesystem
  autoResume?: boolean;
  volumeMounts?: Array<{ volume_id: string; mount_path: string }>; // E2B's volumeMounts, as Box volume ids
}

/** An E2B sandbox: a box of the organization plus what E2B's API knows of it. */
export interface Sandbox {
  row: SandboxRow;
  box: BoxRecord;
  state: SandboxState;
}

const stateOf = (b: BoxRecord): SandboxState | undefined =>
  b.status === 'running' || b.status === 'creating'
    ? 'running'
    : b.status === 'paused' || b.status === 'sleeping' || b.status === 'interrupted_restorable'
      ? 'paused'
      : undefined;

function timeoutSeconds(t: number | undefined): number {
  if (t === undefined) return DEFAULT_TIMEOUT_S;
  if (!Number.isInteger(t) || t < 0 || t > MAX_TIMEOUT_S) throw invalid(`timeout must be a whole number of seconds from 0 to ${MAX_TIMEOUT_S}.`, 'timeout');
  return t;
}

/**
 * E2B's sandbox lifecycle on Box's boxes: a sandbox is a box of the organization's `e2b`
 * app (visible in the UI and the CLI), its id the box id. A sandbox past its end is killed,
 * or paused when it was created with autoPause (`sweep`, run every second).
 */
export class SandboxService {
  private policies: SandboxPolicies;

  constructor(
    private repo: SandboxesRepo,
    private deps: {
      boxes: BoxesPort;
      checkpoints: CheckpointsPort;
      apps: AppsPort;
      policies: PoliciesPort;
      files: FilesPort;
      log: { warn(...a: unknown[]): void };
      /** The Box image of an E2B template reference (`name:tag` through its tags); default: the reference itself. */
      resolveTemplate?: (orgId: string, template: string) => Promise<string>;
    },
  ) {
    this.policies = new SandboxPolicies(deps.policies, deps.boxes, repo, deps.log);
  }

  /** A live sandbox of the organization; a killed or unknown one is not found (E2B answers 404). */
  async get(orgId: string, id: string): Promise<Sandbox> {
    const row = await this.repo.get(id);
    const box = row && row.org_id === orgId ? await this.deps.boxes.get(id) : undefined;
    const state = box && stateOf(box);
    if (!row || !box || !state) throw notFound(`Sandbox ${id} not found`, 'not_found', 'sandboxID');
    return { row, box, state };
  }

  /** A live sandbox of the organization, or undefined. */
  async find(orgId: string, id: string): Promise<Sandbox | undefined> {
    try {
      return await this.get(orgId, id);
    } catch {
      return undefined;
    }
  }

  /** By envd access token (the sandbox front checks it). */
  async row(id: string): Promise<SandboxRow | undefined> {
    return await this.repo.get(id);
  }

  /** Every sandbox row (the signed-URL front finds the sandbox whose token signed a URL). */
  async rows(): Promise<SandboxRow[]> {
    return await this.repo.all();
  }

  async box(id: string): Promise<BoxRecord | undefined> {
    return await this.deps.boxes.get(id);
  }

  async create(auth: Principal, body: CreateSandbox): Promise<Sandbox> {
    const template = body.templateID ?? 'base';
    const timeout = timeoutSeconds(body.timeout);
    if (body.autoResume && body.keepMemory === false)
      throw invalid('autoResume cannot be combined with keepMemory: false: a filesystem-only pause is resumed with connect only.', 'autoResume');
    const name = `e2b-${crypto.randomBytes(4).toString('hex')}`;
    const app = await this.deps.apps.find(auth.orgId, E2B_APP, true);
    const policy = await this.policies.make(auth.orgId, name, body.network);
    let made: NewBox;
    try {
      const image = this.deps.resolveTemplate ? await this.deps.resolveTemplate(auth.orgId, template) : template;
      made = await boxForTemplate(this.deps, auth, { template: image, name, appId: app.id, policyId: policy?.id, volumeMounts: body.volumeMounts ?? [] });
    } catch (e) {
      await this.policies.drop(auth.orgId, policy?.id);
      throw e;
    }
    const s = await this.register(auth, made, {
      template,
      metadata: body.metadata ?? {},
      envs: body.envVars ?? {},
      autoPause: !!body.autoPause,
      timeout,
      policyId: policy?.id ?? null,
      keepMemory: body.keepMemory ?? true,
      autoResume: !!body.autoResume,
      publicTraffic: body.network?.allowPublicTraffic ?? true,
      maskRequestHost: body.network?.maskRequestHost ?? null,
    });
    if (body.mcp !== undefined && body.mcp !== null) await installMcpNotice(this.deps.files, s.box);
    return s;
  }

  /** Makes a new box (created, forked or from a snapshot) a sandbox with its own access token; one that did not start fails (500). */
  async register(
    auth: Principal,
    made: NewBox,
    o: {
      template: string;
      metadata: Record<string, string>;
      envs: Record<string, string>;
      autoPause: boolean;
      timeout?: number;
      policyId?: string | null;
      keepMemory?: boolean;
      autoResume?: boolean;
      publicTraffic?: boolean; // E2B's network.allowPublicTraffic (default true)
      maskRequestHost?: string | null; // E2B's network.maskRequestHost
    },
  ): Promise<Sandbox> {
    if (!made.started) throw new Failed(`Sandbox ${made.box.box_id} did not start: ${made.reason}`);
    const { box } = made;
    const now = Date.now();
    await this.repo.insert({
      box_id: box.box_id,
      org_id: auth.orgId,
      key_id: auth.key.id,
      template_id: o.template,
      metadata: o.metadata,
      envs: o.envs,
      access_token: crypto.randomBytes(24).toString('base64url'),
      auto_pause: o.autoPause,
      started_at: new Date(now).toISOString(),
      end_at: new Date(now + timeoutSeconds(o.timeout) * 1000).toISOString(),
      created_at: new Date(now).toISOString(),
      policy_id: o.policyId ?? null,
      keep_memory: o.keepMemory ?? true,
      cold_resume: false,
      auto_resume: o.autoResume ?? false,
      timeout_s: timeoutSeconds(o.timeout),
      public_traffic: o.publicTraffic ?? true,
      mask_request_host: o.maskRequestHost ?? null,
    });
    return await this.get(auth.orgId, box.box_id);
  }

  /**
   * One page of the organization's sandboxes (sandbox-page.ts), running and paused unless
   * `states` narrows them; `metadata` is E2B's `k1=v1&k2=v2`, each key and value URL-encoded.
   */
  async page(
    orgId: string,
    q: PageQuery & { states?: SandboxState[]; metadata?: string; template?: string },
  ): Promise<{ items: Sandbox[]; nextToken?: string }> {
    return pageOf(await this.list(orgId, { states: q.states, metadata: metadataFilter(q.metadata), template: q.template }), q);
  }

  /** Sandboxes of the organization, running and paused unless `states` narrows them. */
  private async list(orgId: string, q: { states?: SandboxState[]; metadata?: Record<string, string>; template?: string }): Promise<Sandbox[]> {
    const out: Sandbox[] = [];
    for (const row of await this.repo.byOrg(orgId)) {
      const box = await this.deps.boxes.get(row.box_id);
      const state = box && stateOf(box);
      if (!box || !state) continue;
      if (q.states && !q.states.includes(state)) continue;
      if (q.template && row.template_id !== q.template) continue;
      if (q.metadata && Object.entries(q.metadata).some(([k, v]) => row.metadata[k] !== v)) continue;
      out.push({ row, box, state });
    }
    return out;
  }

  async setTimeout(orgId: string, id: string, timeout: number | undefined): Promise<void> {
    const s = await this.get(orgId, id);
    await this.repo.setTimes(s.row.box_id, { end_at: new Date(Date.now() + timeoutSeconds(timeout) * 1000).toISOString() });
  }

  async kill(orgId: string, id: string): Promise<void> {
    const s = await this.get(orgId, id);
    await this.deps.boxes.terminate(s.box);
    await this.forget(s.row);
  }

  /** Drops what E2B knew of a sandbox whose box is gone, and the policy made for its network rules. */
  private async forget(row: SandboxRow): Promise<void> {
    await this.repo.delete(row.box_id);
    await this.policies.drop(row.org_id, row.policy_id);
  }

  /**
   * Pauses a running sandbox (409 when it is already paused: the SDK then answers false).
   * `memory: false` (E2B's `keepMemory: false`) keeps only the filesystem: its resume reboots.
   */
  async pause(orgId: string, id: string, memory?: boolean): Promise<void> {
    const s = await this.get(orgId, id);
    if (s.state === 'paused') throw conflict(`Sandbox ${id} is already paused`, 'already_paused');
    await this.deps.boxes.pause(s.box);
    await this.repo.setColdResume(id, memory === false);
  }

  /** E2B's updateNetwork: the sandbox's HTTP policy takes the new rules (one is made when it had none). */
  async updateNetwork(orgId: string, id: string, network: E2BNetwork): Promise<void> {
    const s = await this.get(orgId, id);
    await this.policies.replace(s.row, s.box.name, network);
  }

  private resuming = new InFlight<boolean>();
  /** Traffic to a paused sandbox created with `autoResume` resumes it (with its create timeout); requests together share one resume. */
  autoResume(id: string): Promise<boolean> {
    return this.resuming.run(id, async () => {
      const row = await this.repo.get(id);
      if (!row?.auto_resume || row.cold_resume) return false;
      const s = await this.find(row.org_id, id);
      if (s?.state !== 'paused') return false;
      await this.connect(row.org_id, id, row.timeout_s);
      return true;
    });
  }

  /**
   * Connects: a paused sandbox resumes with a fresh timeout; a running one keeps its end
   * unless the new timeout reaches further (E2B's rule).
   */
  async connect(orgId: string, id: string, timeout: number | undefined, memory?: boolean): Promise<Sandbox> {
    const s = await this.get(orgId, id);
    const end = Date.now() + timeoutSeconds(timeout) * 1000;
    if (s.state === 'paused') {
      // a filesystem-only pause (or connect with memory: false) cold-boots from the disk
      if (s.row.cold_resume || memory === false) await this.deps.boxes.reboot(s.box);
      else await this.deps.boxes.resume(s.box);
      await this.repo.setColdResume(id, false);
      await this.repo.setTimes(id, { started_at: new Date().toISOString(), end_at: new Date(end).toISOString() });
    } else if (timeout !== undefined && end > Date.parse(s.row.end_at)) {
      await this.repo.setTimes(id, { end_at: new Date(end).toISOString() });
    }
    const after = await this.get(orgId, id);
    if (after.state !== 'running') throw new Failed(`Sandbox ${id} could not be resumed: ${after.box.error_message ?? after.box.status}`);
    return after;
  }

  /** Kills or pauses (autoPause) the sandboxes past their end. */
  async sweep(now = Date.now()): Promise<void> {
    for (const row of await this.repo.all()) {
      if (Date.parse(row.end_at) > now) continue;
      const box = await this.deps.boxes.get(row.box_id);
      const state = box && stateOf(box);
      try {
        if (!box || !state) await this.forget(row);
        else if (state !== 'running')
          continue; // a paused sandbox waits for connect, as on E2B
        else if (row.auto_pause) {
          await this.deps.boxes.pause(box);
          await this.repo.setColdResume(row.box_id, !row.keep_memory);
        } else {
          await this.deps.boxes.terminate(box);
          await this.forget(row);
        }
      } catch (e) {
        this.deps.log.warn(`e2b: timeout of sandbox ${row.box_id} failed`, e);
      }
    }
  }
}
