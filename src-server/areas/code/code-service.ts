import type { BoxRecord } from '../boxes/ports.js';
import type { CodeContext, CodeEvent, CodeExecution, CodeLanguage, CreateContextBody, RunCodeBody } from '@box/contract/code';
import type { PreparationStage } from '@box/contract/preparation';
import { conflict } from '../../kernel/domain-errors.js';
import { DaemonLink, type DaemonEvent } from './daemon-link.js';
import type { CodeBoxes } from './ports.js';

/** Default cell timeout (seconds) when a run names none. */
const DEFAULT_TIMEOUT_S = 300;

type GuestContext = Omit<CodeContext, 'box_id'>;

/**
 * The code interpreter of boxes: contexts and runs, answered by the daemon inside each box
 * (resources/guest/code). The contexts and their state live in the box, not here: this
 * service keeps only one connection per box, made again when it ends (the box slept and
 * lost it, a fork's child has none, the service restarted).
 */
export class CodeService {
  private links = new Map<string, Promise<DaemonLink>>();

  /** `codeStage`: the code layer's preparation stage (GET /v1/status), for the answer on a box that started before it. */
  constructor(
    private boxes: CodeBoxes,
    private codeStage: () => PreparationStage | undefined = () => undefined,
  ) {
    boxes.onGone((boxId) => this.drop(boxId));
  }

  private async link(box: BoxRecord): Promise<DaemonLink> {
    const running = await this.boxes.ensureRunning(box);
    let p = this.links.get(box.box_id);
    if (p) {
      const l = await p.catch(() => undefined);
      if (l && !l.closed) return l;
      if (this.links.get(box.box_id) === p) this.links.delete(box.box_id);
      p = this.links.get(box.box_id);
    }
    if (!p) {
      const { env, user } = this.boxes.commandEnv(running);
      p = this.boxes.agent(box.box_id).then((agent) => DaemonLink.open(agent, env, user));
      this.links.set(box.box_id, p);
      p.catch(() => this.links.get(box.box_id) === p && this.links.delete(box.box_id));
    }
    return p;
  }

  private drop(boxId: string) {
    const p = this.links.get(boxId);
    this.links.delete(boxId);
    void p?.then((l) => l.close()).catch(() => {});
  }

  private view(box: BoxRecord, c: GuestContext): CodeContext {
    return { id: c.id, box_id: box.box_id, language: c.language, cwd: c.cwd, created_at: c.created_at, status: c.status };
  }

  /**
   * A box started from the guest image's base, before the code interpreter's layer was ready
   * (issue 35), has no Jupyter kernel and no Node: a cell of those languages is answered
   * at once (409, `failed_precondition`, naming what is being prepared and the time left)
   * rather than failing somewhere in the kernel's start. bash runs in every box.
   */
  private ensureLanguage(link: DaemonLink, language: string) {
    if (!link.missing.includes(language)) return;
    const s = this.codeStage();
    const why = `This box has no ${language} runtime`;
    const layer = "the code interpreter (Python's Jupyter kernel with numpy, pandas and matplotlib; Node for JavaScript and TypeScript; R)";
    let msg: string;
    if (!s) msg = `${why}: its image does not have ${layer}. bash cells run in it; boxes of the default image have it.`;
    else if (s.state === 'failed')
      msg = `${why}: it started from the guest image's base, and the build of ${layer} over it failed: ${s.error ?? 'unknown error'}. bash cells run in this box.`;
    else if (s.state === 'ready')
      msg = `${why}: it started from the guest image's base before ${layer} was ready. It is ready now: boxes created from now on have it (create a new box for ${language}). bash cells run in this box.`;
    else {
      const left = s.eta_seconds === null ? `usually about ${s.typical_seconds} s` : s.eta_seconds === 0 ? 'any moment now' : `about ${s.eta_seconds} s left`;
      msg = `${why}: it started from the guest image's base while ${layer} is being prepared: ${s.percent}%, ${left} (GET /v1/status, preparation stage "code"). Boxes created once it is ready have it: create a new box then. bash cells run in this box.`;
    }
    throw conflict(msg, 'failed_precondition', 'language');
  }

  async createContext(box: BoxRecord, body: CreateContextBody): Promise<CodeContext> {
    const link = await this.link(box);
    this.ensureLanguage(link, body.language ?? 'python');
    const r = await link.request({ op: 'create', language: body.language ?? 'python', cwd: body.cwd, env: body.env });
    return this.view(box, r.context as GuestContext);
  }

  /** `defaults`: the default contexts of these languages are listed also before their first run (in `cwd`). */
  async listContexts(box: BoxRecord, opts: { defaults?: CodeLanguage[]; cwd?: string } = {}): Promise<CodeContext[]> {
    const r = await (await this.link(box)).request({ op: 'list', defaults: opts.defaults, cwd: opts.cwd });
    return (r.contexts as GuestContext[]).map((c) => this.view(box, c));
  }

  async deleteContext(box: BoxRecord, contextId: string) {
    await (await this.link(box)).request({ op: 'delete', context_id: contextId });
    return { id: contextId, deleted: true as const };
  }

  async restartContext(box: BoxRecord, contextId: string): Promise<CodeContext> {
    const r = await (await this.link(box)).request({ op: 'restart', context_id: contextId });
    return this.view(box, r.context as GuestContext);
  }

  /**
   * Runs a cell; each stdout/stderr/result/error goes to onEvent as it happens. `cwd`: where
   * the language's default context starts, or moves to before its first cell; `signal`: its
   * abort (the client went away) interrupts the cell.
   */
  async run(
    box: BoxRecord,
    body: RunCodeBody,
    onEvent: (e: CodeEvent) => void = () => {},
    opts: { cwd?: string; signal?: AbortSignal } = {},
  ): Promise<CodeExecution> {
    // The box stays awake while the cell runs (and while its kernel starts): a first cell can
    // outlast a short auto-sleep (hosted tools' boxes sleep after 60 s idle), and a box put to
    // sleep under it would leave the cell waiting for its timeout.
    const release = this.boxes.hold(box.box_id);
    this.boxes.touch(box.box_id);
    try {
      return await this.runHeld(box, body, onEvent, opts);
    } finally {
      release();
      this.boxes.touch(box.box_id);
    }
  }

  private async runHeld(
    box: BoxRecord,
    body: RunCodeBody,
    onEvent: (e: CodeEvent) => void,
    opts: { cwd?: string; signal?: AbortSignal },
  ): Promise<CodeExecution> {
    const link = await this.link(box);
    if (!body.context_id) this.ensureLanguage(link, body.language ?? 'python');
    const req = {
      op: 'run',
      code: body.code,
      context_id: body.context_id,
      language: body.context_id ? undefined : (body.language ?? 'python'),
      env: body.env,
      timeout: body.timeout ?? DEFAULT_TIMEOUT_S,
      cwd: opts.cwd,
    };
    const end = await link.request(
      req,
      (e: DaemonEvent) => {
        if (e.type === 'stdout' || e.type === 'stderr') onEvent({ type: e.type, data: String(e.data) });
        else if (e.type === 'result') onEvent({ type: 'result', result: e.result as CodeExecution['results'][number] });
        else if (e.type === 'error') onEvent({ type: 'error', error: e.error as NonNullable<CodeExecution['error']> });
      },
      opts.signal,
    );
    return end.execution as CodeExecution;
  }
}
