/**
 * Writes sdk/python/src/box_desktop/types.py: the Python SDK's answer shapes as TypedDicts,
 * printed from the shared contract (the zod schemas of packages/contract/src/routes.ts, the
 * same table the TypeScript SDK's types.ts is printed from), through their JSON Schema.
 * Each entry names an operation and where its shape sits in its answer. `--check` fails when
 * the file is stale (gen-types.test.ts runs it in npm test).
 *
 *   npx tsx sdk/python/tools/gen-types.ts [--check]
 *
 * Python 3.9 has no NotRequired: a shape with optional keys is two functional TypedDicts
 * (required, total=False) and a class joining them; functional ones because keys such as
 * `from` or `text/plain` are not Python names.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { ROUTES } from '@box/contract/routes';

const OUT = path.resolve(import.meta.dirname, '../src/box_desktop/types.py');

type Route = keyof typeof ROUTES;
/** Public name, the operation whose answer holds it, the path to it in the answer ('[]' = an item of an array), doc. */
export const ENTRIES: [name: string, route: Route, at: string[], doc: string][] = [
  ['BoxStatus', 'GET /v1/boxes/:box_id', ['status'], 'Where a box is in its life.'],
  ['BoxInfo', 'GET /v1/boxes/:box_id', [], 'A box as the API describes it.'],
  ['Checkpoint', 'GET /v1/box-checkpoints/:checkpoint_id', [], 'A checkpoint of a box.'],
  ['ForkResult', 'POST /v1/boxes/:box_id/fork', [], 'What a fork answers: its checkpoint and the new boxes.'],
  ['LineageEdge', 'GET /v1/box-lineage', ['data', '[]'], 'One edge of the fork lineage.'],
  ['ExecInfo', 'GET /v1/boxes/:box_id/exec', ['data', '[]'], 'A command run in a box.'],
  ['DirectoryEntry', 'GET /v1/boxes/:box_id/directories', ['entries', '[]'], 'One entry of a directory in a box.'],
  ['FileWriteResult', 'PUT /v1/boxes/:box_id/files', [], 'What a file write answers.'],
  ['CronJob', 'GET /v1/boxes/:box_id/cron/:cron_id', [], 'A cron job of a box.'],
  ['CronRun', 'POST /v1/boxes/:box_id/cron/:cron_id/run', [], 'One run of a cron job.'],
  ['VolumeInfo', 'GET /v1/box-volumes/:volume_id', [], 'A volume.'],
  ['VolumeFileWriteResult', 'PUT /v1/box-volumes/:volume_id/files', [], 'What a file write to a volume answers.'],
  ['VolumeEntry', 'GET /v1/box-volumes/:volume_id/paths', [], 'A file or directory on a volume.'],
  ['DeletedPath', 'DELETE /v1/box-volumes/:volume_id/paths', [], 'What deleting a volume path answers.'],
  ['HttpPolicy', 'GET /v1/http-policies/:id', [], 'An HTTP (egress) policy.'],
  ['PolicyPreset', 'GET /v1/http-policies/presets', ['data', '[]'], 'A ready-made policy.'],
  ['PolicyDetached', 'DELETE /v1/boxes/:box_id/http-policy', [], 'What detaching a policy answers.'],
  ['Listener', 'POST /v1/boxes/:box_id/listeners', [], 'A published port of a box.'],
  ['EgressLogRow', 'GET /v1/boxes/:box_id/egress-log', ['data', '[]'], 'One request a box made through its egress proxy.'],
  ['CodeContext', 'POST /v1/boxes/:box_id/code/contexts', [], 'A code interpreter context: a kernel with its own variables.'],
  ['CodeResult', 'POST /v1/boxes/:box_id/code/run', ['results', '[]'], 'One rich result of a run, by MIME type (binary types base64).'],
  ['CodeError', 'POST /v1/boxes/:box_id/code/run', ['error', '!null'], 'An error a run raised, with its traceback.'],
  ['CodeExecutionData', 'POST /v1/boxes/:box_id/code/run', [], 'A finished code run as the API answers it.'],
  ['DesktopWindow', 'GET /v1/boxes/:box_id/desktop/windows', ['data', '[]'], 'A window on a desktop box.'], // before DesktopInfo, which names it
  ['DesktopInfo', 'GET /v1/boxes/:box_id/desktop', [], "A desktop box's screen: size, cursor, focused window, live view and CDP paths."],
  ['DesktopActionResult', 'POST /v1/boxes/:box_id/desktop/actions', [], 'What a desktop action answers: the cursor after it.'],
  [
    'DesktopRecording',
    'GET /v1/boxes/:box_id/desktop/recordings/:recording_id',
    [],
    "A recording of a desktop box's screen: its frames (time, image) for playback.",
  ],
  ['ContextDeleted', 'DELETE /v1/boxes/:box_id/code/contexts/:context_id', [], 'What deleting a code context answers.'],
  ['Whoami', 'GET /v1/whoami', [], 'Who the API key is.'],
];

type Schema = Record<string, any>;
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
const pascal = (s: string) => s.replace(/(^|[^A-Za-z0-9])([A-Za-z0-9])/g, (_, __, c: string) => c.toUpperCase());
const str = (s: string) => JSON.stringify(s);
/** A JSON value as a Python literal. */
const lit = (v: unknown) => (v === true ? 'True' : v === false ? 'False' : v === null ? 'None' : JSON.stringify(v));

function answerSchema(route: Route): Schema {
  const zs = (ROUTES[route] as { response?: z.ZodType }).response;
  if (!zs) throw new Error(`${route} has no JSON answer in the contract`);
  return z.toJSONSchema(zs, { io: 'output', unrepresentable: 'any' }) as Schema;
}

function dig(s: Schema, at: string[], where: string): Schema {
  let cur = s;
  for (const step of at) {
    if (step === '[]') cur = cur.items;
    else if (step === '!null') cur = (cur.anyOf as Schema[]).find((m) => m.type !== 'null')!;
    else cur = cur.properties?.[step];
    if (!cur) throw new Error(`${where}: nothing at ${at.join('.')}`);
  }
  return cur;
}

/** Drops what does not change the Python type (descriptions, formats, bounds) to compare shapes. */
function shapeKey(s: Schema): string {
  return JSON.stringify(s, (k, v) =>
    ['description', 'format', 'pattern', 'minimum', 'maximum', 'minLength', 'maxLength', 'minItems', 'maxItems', '$schema'].includes(k) ? undefined : v,
  );
}

class Printer {
  private readonly out: string[] = [];
  private readonly named = new Map<string, string>();
  private readonly used = new Set<string>();

  constructor(readonly entries: [string, Schema, string][]) {
    // Whole entries are referred to by name wherever their shape appears in another.
    for (const [name, s] of entries) this.named.set(shapeKey(s), name);
  }

  print(): string {
    for (const [name, s, doc] of this.entries) this.define(name, s, doc);
    return this.out.join('\n');
  }

  /** The Python type of `s`; objects become TypedDicts named after where they appear. */
  private type(s: Schema, hint: string): string {
    const known = this.named.get(shapeKey(s));
    if (known && known !== hint) return known;
    const alts = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
    if (alts) {
      const parts = [...new Set(alts.map((a, i) => this.type(a, alts.length > 2 ? `${hint}${i}` : hint)))];
      const nonNull = parts.filter((p) => p !== 'None');
      const union = nonNull.length > 1 ? `Union[${nonNull.join(', ')}]` : nonNull[0]!;
      return parts.includes('None') ? `Optional[${union}]` : union;
    }
    if (s.const !== undefined) return `Literal[${lit(s.const)}]`;
    if (s.enum) return `Literal[${(s.enum as unknown[]).map(lit).join(', ')}]`;
    if (Array.isArray(s.type)) return this.type({ ...s, type: undefined, anyOf: s.type.map((t: string) => ({ ...s, type: t })) }, hint);
    switch (s.type) {
      case 'string':
        return 'str';
      case 'integer':
        return 'int';
      case 'number':
        return 'float';
      case 'boolean':
        return 'bool';
      case 'null':
        return 'None';
      case 'array':
        return s.items ? `List[${this.type(s.items, `${hint}Item`)}]` : 'List[Any]';
      case 'object': {
        if (s.properties && Object.keys(s.properties).length) {
          if (!known) this.define(hint, s, '');
          return hint;
        }
        const extra = s.additionalProperties;
        return extra && typeof extra === 'object' && Object.keys(extra).length ? `Dict[str, ${this.type(extra, `${hint}Value`)}]` : 'Dict[str, Any]';
      }
      default:
        return 'Any';
    }
  }

  /** Emits a TypedDict (after the ones it refers to) or, for a non-object, an alias. */
  private define(name: string, s: Schema, doc: string) {
    if (this.used.has(name)) throw new Error(`two shapes would be named ${name}`);
    this.used.add(name);
    if (s.type !== 'object' || !s.properties) {
      const t = this.type(s, name);
      this.out.push(...(doc ? [`#: ${doc}`] : []), `${name} = ${t}`, '', '');
      return;
    }
    const required = new Set<string>(s.required ?? []);
    const fields = Object.entries(s.properties as Record<string, Schema>).map(([key, p]) => {
      const t = this.type(p, `${name}${pascal(key)}`);
      const comment = p.description ? `    # ${String(p.description).replace(/\s+/g, ' ')}\n` : '';
      return { key, line: `${comment}    ${str(key)}: ${t},`, required: required.has(key) };
    });
    const req = fields.filter((f) => f.required);
    const opt = fields.filter((f) => !f.required);
    const dict = (fs_: typeof fields) => `{\n${fs_.map((f) => f.line).join('\n')}\n}`;
    const docstring = doc ? `    """${doc}"""` : '    pass';
    if (opt.length === 0) {
      if (doc) this.out.push(`#: ${doc}`);
      this.out.push(`${name} = TypedDict(${str(name)}, ${dict(req)})`, '', '');
    } else if (req.length === 0) {
      if (doc) this.out.push(`#: ${doc}`);
      this.out.push(`${name} = TypedDict(${str(name)}, ${dict(opt)}, total=False)`, '', '');
    } else {
      this.out.push(`_${name}Required = TypedDict(${str(`_${name}Required`)}, ${dict(req)})`, '');
      this.out.push(`_${name}Optional = TypedDict(${str(`_${name}Optional`)}, ${dict(opt)}, total=False)`, '', '');
      this.out.push(`class ${name}(_${name}Required, _${name}Optional):`, docstring, '', '');
    }
    if (!IDENT.test(name)) throw new Error(`not a Python name: ${name}`);
  }
}

export function generate(): string {
  const entries = ENTRIES.map(([name, route, at, doc]) => [name, dig(answerSchema(route), at, name), doc] as [string, Schema, string]);
  const names = ENTRIES.map(([n]) => n).sort();
  return [
    '# GENERATED by sdk/python/tools/gen-types.ts from packages/contract/src: do not edit.',
    '# `npx tsx sdk/python/tools/gen-types.ts` rewrites it; npm test fails when it is stale.',
    '"""The shapes of the API\'s answers, as TypedDicts (the same contract as the TypeScript SDK\'s types)."""',
    '',
    'from typing import Any, Dict, List, Literal, Optional, TypedDict, Union',
    '',
    '__all__ = [',
    ...names.map((n) => `    ${str(n)},`),
    ']',
    '',
    '',
    new Printer(entries).print().trimEnd(),
    '',
  ].join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.dirname, 'gen-types.ts')) {
  const text = generate();
  if (process.argv.includes('--check')) {
    const cur = fs.existsSync(OUT) ? fs.readFileSync(OUT, 'utf8') : '';
    if (cur !== text) {
      console.error(`${OUT} is stale: run npx tsx sdk/python/tools/gen-types.ts`);
      process.exit(1);
    }
  } else fs.writeFileSync(OUT, text);
}
