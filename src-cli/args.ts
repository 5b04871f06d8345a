import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { BoxClient } from './client.js';
import type { CliConfig } from './config.js';
import { CliError } from './errors.js';

export interface Ctx {
  client: BoxClient;
  config: CliConfig;
  /** `--json`: print the service's answers as JSON instead of tables. */
  json: boolean;
}

/** One subcommand: `usage` is printed on `--help` and on a usage error. */
export interface Command {
  usage: string;
  summary: string;
  /** Set on a command group: `--help` then belongs to its subcommand, not to the group. */
  group?: Group;
  run(ctx: Ctx, argv: string[]): Promise<number | void>;
}

export type Group = Record<string, Command>;

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * node:util parseArgs, strict, with usage errors turned into CliError (exit 2).
 * `positionals` bounds the number of positional arguments.
 */
export function parse<O extends Options>(argv: string[], usage: string, options: O, positionals: [min: number, max: number] = [0, 0]) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new CliError(`${(e as Error).message}\nusage: ${usage}`, 2);
  }
  const [min, max] = positionals;
  const n = parsed.positionals.length;
  if (n < min) throw new CliError(`missing argument\nusage: ${usage}`, 2);
  if (n > max) throw new CliError(`unexpected argument "${parsed.positionals[max]}"\nusage: ${usage}`, 2);
  return parsed as { values: ParsedValues<O>; positionals: string[] };
}

type ParsedValues<O extends Options> = {
  [K in keyof O]?: O[K] extends { multiple: true }
    ? O[K] extends { type: 'boolean' }
      ? boolean[]
      : string[]
    : O[K] extends { type: 'boolean' }
      ? boolean
      : string;
};

/** Splits `args -- rest` at the first bare `--`. */
export function splitDashDash(argv: string[]): [string[], string[] | undefined] {
  const i = argv.indexOf('--');
  return i < 0 ? [argv, undefined] : [argv.slice(0, i), argv.slice(i + 1)];
}

export function intArg(value: string | undefined, name: string, min = 0, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) throw new CliError(`--${name} must be an integer between ${min} and ${max}`, 2);
  return Number(value);
}

/** Runs `group[argv[0]]`, or prints the group's help. */
export async function dispatch(ctx: Ctx, group: Group, prefix: string, argv: string[]): Promise<number | void> {
  const [sub, ...rest] = argv;
  if (!sub || sub === '--help' || sub === '-h' || sub === 'help') {
    process.stdout.write(groupHelp(prefix, group));
    return sub ? 0 : 2;
  }
  const cmd = group[sub];
  if (!cmd) throw new CliError(`unknown command "${prefix} ${sub}"\n${groupHelp(prefix, group).trimEnd()}`, 2);
  if (!cmd.group && rest.includes('--help') && !rest.slice(0, rest.indexOf('--help')).includes('--')) {
    process.stdout.write(`usage: ${cmd.usage}\n  ${cmd.summary}\n`);
    return 0;
  }
  return cmd.run(ctx, rest);
}

function groupHelp(prefix: string, group: Group): string {
  const lines = Object.values(group).map((c) => `  ${c.usage}\n      ${c.summary}`);
  return `usage: ${prefix} <command>\n${lines.join('\n')}\n`;
}
