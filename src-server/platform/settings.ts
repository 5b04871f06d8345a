/**
 * Every knob of the service, in one table (docs/architecture.md, "Settings"):
 *
 * - `ENV_SETTINGS`: the `BOX_*` environment variables the service reads. `readEnv` parses
 *   them with zod; a malformed value fails the start with a message naming the variable. A
 *   `BOX_*` variable that no table here names (a typo such as BOX_WARMPOOL, or one of
 *   another program: Box.com's SDKs read BOX_CLIENT_ID) is ignored with a warning naming
 *   it and the nearest known name (`EnvSettings.warnings`, on the service log at start).
 *   `startService` parses them once and hands them down as `ServiceConfig.env`; the runtime's
 *   free functions read the same parse through `boxEnv()`. README.md's "Runtime knobs"
 *   table is checked against this one (settings.test.ts).
 * - `TuningSchema`: `ServiceConfig.tuning`, the area knobs a caller of `startService` may
 *   pass (tests mostly), typed and defaulted here instead of cast where each is used.
 * - `ServiceConfig`'s own fields (app-context.ts) come from the caller or the CLI flags of
 *   `headless.ts`.
 *
 * Nothing else in src-server reads `process.env` (eslint: no-restricted-syntax).
 */
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { CatalogEntry } from '@box/contract/inference';
import { Rates } from '@box/contract/usage';
import { editDistance } from '../kernel/util/edit-distance.js';
import { SERVING_SETTINGS } from './serving/serving-settings.js';

/** '0' or '1'; true unless it is `off`. */
const flag = (off: '0' | '1') => z.enum(['0', '1']).transform((v) => v !== off);
const count = (max: number) => z.coerce.number().int().min(0).max(max);
interface EnvSetting {
  env: `BOX_${string}`;
  schema: z.ZodType;
  /** As README.md's table shows it. */
  default: string;
  meaning: string;
}

/** The service's environment variables; `key` is the field of `EnvSettings`. */
export const ENV_SETTINGS = {
  dataDir: { env: 'BOX_DATA_DIR', schema: z.string().min(1), default: '`~/.box-desktop`', meaning: 'the data dir of the headless service (`--data-dir` wins)' },
  databaseUrl: {
    env: 'BOX_DATABASE_URL',
    schema: z.string().regex(/^postgres(ql)?:\/\/\S+$/, 'a postgres:// URL'),
    default: 'none: SQLite in the data dir',
    meaning: 'keep the state in this PostgreSQL database (`postgres://user:pass@host:5432/db`) instead of `<data dir>/box.db`',
  },
  apiKey: { env: 'BOX_API_KEY', schema: z.string().min(1), default: 'minted', meaning: 'seeds an organization-scoped key with this value' },
  warmPool: {
    env: 'BOX_WARM_POOL',
    schema: count(8),
    default: '`1`',
    meaning: 'warmed clones kept ready per template in use (`0`: none; each costs ~36 MiB PSS)',
  },
  templates: {
    env: 'BOX_TEMPLATES',
    schema: flag('0'),
    default: 'on',
    meaning: '`0`: every box cold-boots instead of cloning a warm template (seconds instead of ms)',
  },
  restoreSpares: {
    env: 'BOX_RESTORE_SPARES',
    schema: count(4),
    default: '`1`',
    meaning: 'QEMUs started ahead per template in use for resumes, forks and pool-empty creates (`0`: none)',
  },
  saveCompose: {
    env: 'BOX_SAVE_COMPOSE',
    schema: flag('0'),
    default: 'on',
    meaning: '`0`: save clones through a migration + filter instead of reading the written pages',
  },
  tcgTbSizeMib: {
    env: 'BOX_TCG_TB_SIZE',
    schema: z.coerce.number().int().min(1),
    default: '`64` (`512` for desktop boxes)',
    meaning: "QEMU's translation cache per VM in MiB, where KVM/HVF is unavailable (TCG); set, it holds for every box",
  },
  imageCache: {
    env: 'BOX_IMAGE_CACHE',
    schema: z.string().min(1),
    default: 'data dir',
    meaning: 'where the built guest image is kept; one cache can serve several data dirs (tests do)',
  },
  qemu: { env: 'BOX_QEMU', schema: z.string().min(1), default: '`qemu-system-x86_64`', meaning: 'the QEMU binary' },
  accel: { env: 'BOX_ACCEL', schema: z.enum(['kvm', 'hvf', 'tcg']), default: 'probed', meaning: 'forces the accelerator instead of probing for one' },
  tscKhz: { env: 'BOX_TSC_KHZ', schema: z.coerce.number().positive(), default: "the host's", meaning: 'TSC rate in kHz given to guests (`tsc_early_khz`)' },
  ramDelta: { env: 'BOX_RAMDELTA', schema: flag('0'), default: 'on', meaning: '`0`: clones save their whole RAM (no `box-ramdelta`; for comparisons)' },
  qemuNice: {
    env: 'BOX_QEMU_NICE',
    schema: z.coerce.number().int().min(0).max(19),
    default: '`0`',
    meaning: "CPU niceness (0-19) of the boxes' QEMUs, each its own scheduling group: higher, and busy guests yield to everything else on the machine",
  },
  qemuThp: { env: 'BOX_QEMU_THP', schema: flag('0'), default: 'off', meaning: '`1`: start QEMU directly, with transparent huge pages (for comparisons)' },
  guestKernel: { env: 'BOX_GUEST_KERNEL', schema: z.enum(['stock', 'tiny']), default: '`stock`', meaning: 'guest kernel flavour of the guest image' },
  agentBinary: {
    env: 'BOX_AGENT_BINARY',
    schema: z.string().min(1),
    default: 'built',
    meaning: 'a prebuilt guest agent to put into the image instead of building one',
  },
  resourcesDir: {
    env: 'BOX_RESOURCES_DIR',
    schema: z.string().min(1),
    default: '`resources/`',
    meaning: 'where the guest recipe and helpers are (packaged app)',
  },
  rootfsSize: { env: 'BOX_ROOTFS_SIZE', schema: z.string().regex(/^\d+[KMGT]?$/), default: '`2G`', meaning: "size of the guest image's root filesystem" },
  egressCaFile: { env: 'BOX_EGRESS_CA_FILE', schema: z.string().min(1), default: 'none', meaning: 'extra PEM roots the egress proxy trusts upstream' },
  accelCache: {
    env: 'BOX_ACCEL_CACHE',
    schema: z.string().min(1),
    default: '`~/.cache/box-desktop/accel.json`',
    meaning: 'where the accelerator probe answer is kept (one per machine)',
  },
  engineDiscovery: { env: 'BOX_ENGINE_DISCOVERY', schema: flag('0'), default: 'on', meaning: '`0`: never probe for local inference servers' },
  codeWarm: {
    env: 'BOX_CODE_WARM',
    schema: flag('0'),
    default: 'on',
    meaning: "`0`: templates without the code interpreter's started Python kernel (the test suite's other VM tests)",
  },
  hostedToolBoxTtl: {
    env: 'BOX_HOSTED_BOX_TTL',
    schema: z.coerce.number().int().min(60),
    default: '`1200`',
    meaning: 'seconds a box made by a hosted tool (`container: auto`) may stay idle before it is terminated',
  },
  ...SERVING_SETTINGS,
} satisfies Record<string, EnvSetting>;

/** `BOX_*` variables other programs read (the CLI, scripts, the guest recipe, tests): accepted, unused here. */
const OTHER_BOX_VARIABLES = [
  'BOX_URL',
  'BOX_CONTEXT',
  'BOX_INFERENCE_URL',
  'BOX_HEADLESS',
  'BOX_DEBIAN_MIRROR',
  'BOX_KERNEL_VERSION',
  'BOX_INITRD_MODULES',
  'BOX_BENCH_OUT',
  'BOX_E2E_CHROMIUM',
  'BOX_E2E_SCREENSHOTS',
  'BOX_STUB_HOME',
  'BOX_STUB_DIALOG_RESPONSE',
  'BOX_CRASH_AT',
  'BOX_CRASH_PATH',
  'BOX_PDEATHSIG_PARENT',
  'BOX_CODE_PORT',
  'BOX_SDK_PYTHON',
  'BOX_START_NO_BUILD',
  'BOX_TEST_RUN',
  'BOX_DESKTOP_VM',
];

type Env = typeof ENV_SETTINGS;
export type EnvSettings = { [K in keyof Env]?: z.output<Env[K]['schema']> } & {
  /** The home directory (HOME, else the OS's). */
  home: string;
  /** XDG_CACHE_HOME, when set. */
  xdgCacheHome?: string;
  /** Under vitest: response checks on, engine discovery off unless asked for. */
  underTests: boolean;
  /** One line per unknown BOX_* variable (ignored), for the service log. */
  warnings: string[];
};

export class SettingsError extends Error {}

/** Parses the environment; throws SettingsError naming each malformed BOX_* setting; an unknown one goes to `warnings`. */
export function readEnv(env: Record<string, string | undefined> = process.env): EnvSettings {
  const known = new Map<string, string>(Object.entries(ENV_SETTINGS).map(([k, s]) => [s.env, k]));
  const problems: string[] = [];
  const warnings: string[] = [];
  const out: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith('BOX_') || raw === undefined || raw === '') continue;
    const key = known.get(name);
    if (!key) {
      if (OTHER_BOX_VARIABLES.includes(name)) continue;
      const nearest = [...known.keys(), ...OTHER_BOX_VARIABLES].sort((a, b) => editDistance(name, a) - editDistance(name, b))[0];
      warnings.push(`${name} is not a setting of Box and is ignored (the nearest is ${nearest}; the table: README.md, src-server/platform/settings.ts)`);
      continue;
    }
    const r = (ENV_SETTINGS as Record<string, EnvSetting>)[key].schema.safeParse(raw);
    if (r.success) out[key] = r.data;
    else problems.push(`${name}=${JSON.stringify(raw)}: ${r.error.issues.map((i) => i.message).join('; ')}`);
  }
  if (problems.length) throw new SettingsError(`bad environment: ${problems.join(', ')}`);
  return { ...out, home: env.HOME || os.homedir(), xdgCacheHome: env.XDG_CACHE_HOME || undefined, underTests: Boolean(env.VITEST), warnings } as EnvSettings;
}

let cached: { key: string; value: EnvSettings } | undefined;
/** The process's settings, parsed once per distinct environment (tests and benches set a variable first; the parse follows). */
export function boxEnv(): EnvSettings {
  const key = JSON.stringify(Object.entries(process.env).filter(([k]) => k.startsWith('BOX_') || k === 'VITEST' || k === 'HOME' || k === 'XDG_CACHE_HOME'));
  if (cached?.key !== key) cached = { key, value: readEnv(process.env) };
  return cached.value;
}

/** The default data dir of a service started without one. */
export const defaultDataDir = (env = boxEnv()) => env.dataDir ?? path.join(env.home, '.box-desktop');
const LlamaTuning = z.strictObject({
  /** `false` (default): CPU only, no GPU probing. */
  gpu: z.union([z.literal(false), z.literal('auto')]).optional(),
  /** Concurrent requests per loaded model (context sequences). */
  sequences: z.number().int().positive().optional(),
  /** Tokens per sequence (capped at the model's training size). */
  contextSize: z.number().int().positive().optional(),
  /** A model unused this long is unloaded. */
  idleMs: z.number().nonnegative().optional(),
  threads: z.number().int().positive().optional(),
});
export type LlamaTuning = z.infer<typeof LlamaTuning>;

const DiscoveryOptions = z.strictObject({
  /** Injectable for tests (a fake server on a free port). */
  probes: z.array(z.object({ name: z.string(), port: z.number().int(), product: z.string() })).optional(),
  everyMs: z.number().positive().optional(),
  probeTimeoutMs: z.number().positive().optional(),
  /** false: off whatever Settings say (flag/env BOX_ENGINE_DISCOVERY=0). */
  allowed: z.boolean().optional(),
});
export type DiscoveryOptions = z.infer<typeof DiscoveryOptions>;

const WebhookSchedule = z.strictObject({
  /** Delay after failed round n (1-based) is roundDelaysMs[n-1], the last entry repeating. */
  roundDelaysMs: z.array(z.number().nonnegative()).min(1),
  attemptsPerRound: z.number().int().positive(),
  maxRounds: z.number().int().positive(),
  attemptTimeoutMs: z.number().positive(),
  roundBudgetMs: z.number().positive(),
});
export type WebhookSchedule = z.infer<typeof WebhookSchedule>;

const ms = () => z.number().nonnegative();
/** `ServiceConfig.tuning`: area knobs, mostly for tests. Each key: its type, its default (`.default`, or "absent" where the area's own default applies) and what it tunes. */
const TuningSchema = z.strictObject({
  /** templates/: prepare the default template at start (the test harness passes false). */
  prepareTemplates: z.boolean().default(true),
  /** runtime/templates/clone-source.ts: a create cold-boots while its template builds (issue 35; the harness passes false). */
  coldWhileTemplateBuilds: z.boolean().default(true),
  /** runtime/templates/machine-source.ts: the guest image's base first, its code-interpreter layer after it in the background (issue 35; the harness passes false). */
  layeredImage: z.boolean().default(true),
  /** boxes/scheduler.ts: how often stopped/expired boxes are swept. */
  boxTickMs: ms().default(1000),
  /** volumes/: an artificial delay in volume creation (idempotency tests). */
  volumeCreateDelayMs: ms().default(0),
  /** volumes/: the largest file a volume accepts. */
  volumeFileMaxBytes: z
    .number()
    .int()
    .positive()
    .default(16 * 1024 ** 3),
  /** cron/: how often due jobs are looked for. */
  cronTickMs: ms().default(1000),
  /** usage/: how often box metrics are sampled. */
  metricsEveryMs: ms().default(10_000),
  /** usage/rates.ts: prices overriding the defaults. */
  usageRates: Rates.partial().default({}),
  /** inbox/: bytes of webhook bodies kept per organization. */
  inboxMaxBytesPerOrg: z
    .number()
    .int()
    .positive()
    .default(32 * 1024 * 1024),
  /** network/: egress-log entries kept per box. */
  egressLogKeep: z.number().int().positive().default(1000),
  /** network/: the ingress port (0: any free port). */
  ingressPort: z.number().int().min(0).max(65535).default(0),
  /** network/tls/egress-ca.ts: how long a replaced CA stays trusted (absent: its default). */
  egressCaGraceMs: ms().optional(),
  /** network/: extra upstream roots (wins over BOX_EGRESS_CA_FILE). */
  egressCaFile: z.string().optional(),
  /** inference/webhooks/schedule.ts: a shorter retry schedule (tests). */
  webhookSchedule: WebhookSchedule.partial().default({}),
  /** inference/: the embedded engine (llama-engine.ts). */
  llama: LlamaTuning.default({}),
  backgroundConcurrency: z.number().int().positive().default(4),
  backgroundStopWaitMs: ms().default(5000),
  upstreamTimeoutMs: ms().default(600_000),
  structuredAttempts: z.number().int().positive().default(2),
  /** inference/hosted/: hosted tool calls per request before it stops `incomplete`. */
  hostedMaxCalls: z.number().int().positive().default(16),
  /** inference/catalog: the model catalog (absent: the built-in one). */
  modelCatalog: z.array(CatalogEntry).optional(),
  /** inference/engines/discovery.ts: false, or options (absent: on, except under tests). */
  engineDiscovery: z.union([z.literal(false), DiscoveryOptions]).optional(),
});
export type Tuning = z.output<typeof TuningSchema>;
export type TuningInput = z.input<typeof TuningSchema>;
/** Parses a caller's tuning; throws SettingsError naming the key. */
export function readTuning(input: TuningInput = {}): Tuning {
  const r = TuningSchema.safeParse(input);
  if (r.success) return r.data;
  throw new SettingsError(
    `bad tuning: ${r.error.issues.map((i) => `${i.path.join('.') || (i as { keys?: string[] }).keys?.join(', ')}: ${i.message}`).join('; ')}`,
  );
}
