/**
 * Writes sdk/typescript/src/types.ts: the SDK's public data types, printed from the shared
 * contract (packages/contract/src) as plain TypeScript, so the published package needs
 * neither zod nor the service's sources and cannot drift from the API. Each entry names an
 * operation of the contract's route table; `--check` fails when the file is stale (run by
 * the SDK's tests and its build).
 *
 *   npx tsx sdk/typescript/scripts/gen-types.ts [--check]
 */
import fs from 'node:fs';
import path from 'node:path';
import * as prettier from 'prettier';
import ts from 'typescript';

const HERE = path.dirname(new URL(import.meta.url).pathname);
const OUT = path.resolve(HERE, '../src/types.ts');
const PROBE = path.resolve(HERE, '../src/__probe__.ts');

/** Public name -> the contract type it is (Answer = 2xx JSON answer, BodyOf = request body). */
export const ENTRIES: [name: string, expr: string, doc: string][] = [
  ['BoxInfo', "Answer<'GET /v1/boxes/:box_id'>", 'A box as the API describes it.'],
  ['BoxStatus', "Answer<'GET /v1/boxes/:box_id'>['status']", 'Where a box is in its life.'],
  ['CreateBoxBody', "BodyOf<'POST /v1/boxes'>", 'The body of POST /v1/boxes.'],
  ['Checkpoint', "Answer<'GET /v1/box-checkpoints/:checkpoint_id'>", 'A checkpoint of a box.'],
  ['CheckpointBody', "BodyOf<'POST /v1/boxes/:box_id/checkpoint'>", 'The body of POST /v1/boxes/{id}/checkpoint.'],
  ['ForkResult', "Answer<'POST /v1/boxes/:box_id/fork'>", 'What a fork answers: its checkpoint and the new boxes.'],
  ['ResumeResult', "Answer<'POST /v1/boxes/:box_id/resume'>", 'What resume answers.'],
  ['LineageEdge', "Answer<'GET /v1/box-lineage'>['data'][number]", 'One edge of the fork lineage.'],
  ['AutoSleep', "BodyOf<'POST /v1/boxes/:box_id/auto_sleep'>", 'Automatic sleep settings of a box.'],
  ['ExecBody', "BodyOf<'POST /v1/boxes/:box_id/exec'>", 'The body of POST /v1/boxes/{id}/exec.'],
  ['ExecWireEvent', 'ExecEvent', 'One NDJSON line of an exec stream, as sent (output is base64).'],
  ['ExecInfo', "Answer<'GET /v1/boxes/:box_id/exec'>['data'][number]", 'A command run in a box.'],
  ['ExecWaitResult', "Answer<'POST /v1/boxes/:box_id/exec/:exec_id/wait'>", 'The end of a command with the tails of its output.'],
  ['DirectoryListing', "Answer<'GET /v1/boxes/:box_id/directories'>", 'The entries of a directory.'],
  ['FileWriteResult', "Answer<'PUT /v1/boxes/:box_id/files'>", 'What a file write answers.'],
  ['CronJob', "Answer<'GET /v1/boxes/:box_id/cron/:cron_id'>", 'A cron job of a box.'],
  ['CreateCronBody', "BodyOf<'POST /v1/boxes/:box_id/cron'>", 'The body of POST /v1/boxes/{id}/cron.'],
  ['CronRun', "Answer<'POST /v1/boxes/:box_id/cron/:cron_id/run'>", 'One run of a cron job.'],
  ['Volume', "Answer<'GET /v1/box-volumes/:volume_id'>", 'A volume.'],
  ['VolumeEntry', "Answer<'GET /v1/box-volumes/:volume_id/paths'>", 'A file or directory on a volume.'],
  ['DeletedPath', "Answer<'DELETE /v1/box-volumes/:volume_id/paths'>", 'What deleting a volume path answers.'],
  ['HttpPolicy', "Answer<'GET /v1/http-policies/:id'>", 'An HTTP (egress) policy.'],
  ['CreatePolicyBody', "BodyOf<'POST /v1/http-policies'>", 'The body of POST /v1/http-policies.'],
  ['PatchPolicyBody', "BodyOf<'PATCH /v1/http-policies/:id'>", 'The body of PATCH /v1/http-policies/{id}.'],
  ['PolicyPreset', "Answer<'GET /v1/http-policies/presets'>['data'][number]", 'A ready-made policy.'],
  ['PolicyDetached', "Answer<'DELETE /v1/boxes/:box_id/http-policy'>", 'What detaching a policy answers.'],
  ['Listener', "Answer<'POST /v1/boxes/:box_id/listeners'>", 'A published port of a box.'],
  ['CreateListenerBody', "BodyOf<'POST /v1/boxes/:box_id/listeners'>", 'The body of POST /v1/boxes/{id}/listeners.'],
  ['EgressLogRow', "Answer<'GET /v1/boxes/:box_id/egress-log'>['data'][number]", 'One request a box made through its egress proxy.'],
  ['CodeLanguage', "Answer<'POST /v1/boxes/:box_id/code/contexts'>['language']", 'A language of the code interpreter.'],
  ['CodeContext', "Answer<'POST /v1/boxes/:box_id/code/contexts'>", 'A code interpreter context: a kernel with its own variables.'],
  ['CreateContextBody', "BodyOf<'POST /v1/boxes/:box_id/code/contexts'>", 'The body of POST /v1/boxes/{id}/code/contexts.'],
  ['RunCodeBody', "BodyOf<'POST /v1/boxes/:box_id/code/run'>", 'The body of POST /v1/boxes/{id}/code/run.'],
  ['CodeExecutionData', "Answer<'POST /v1/boxes/:box_id/code/run'>", 'A finished run as the API answers it.'],
  ['CodeResult', "Answer<'POST /v1/boxes/:box_id/code/run'>['results'][number]", 'One rich result of a run, by MIME type (binary types base64).'],
  ['DesktopInfo', "Answer<'GET /v1/boxes/:box_id/desktop'>", "A desktop box's screen: size, cursor, focused window, live view and CDP paths."],
  ['DesktopAction', "BodyOf<'POST /v1/boxes/:box_id/desktop/actions'>", 'One mouse or keyboard action on a desktop box.'],
  ['DesktopActionResult', "Answer<'POST /v1/boxes/:box_id/desktop/actions'>", 'What an action answers: the cursor after it.'],
  ['DesktopWindow', "Answer<'GET /v1/boxes/:box_id/desktop/windows'>['data'][number]", 'A window on a desktop box.'],
  [
    'DesktopRecording',
    "Answer<'GET /v1/boxes/:box_id/desktop/recordings/:recording_id'>",
    "A recording of a desktop box's screen: its frames (time, image) for playback.",
  ],
  ['StartRecordingBody', "BodyOf<'POST /v1/boxes/:box_id/desktop/recordings'>", 'The body of POST /v1/boxes/{id}/desktop/recordings.'],
  ['CodeError', "NonNullable<Answer<'POST /v1/boxes/:box_id/code/run'>['error']>", 'An error a run raised, with its traceback.'],
  ['Inbox', "Answer<'POST /v1/inbox/mine'>", 'A webhook inbox: its URL (no API key needed to post there) and what it answers.'],
  ['InboxDelivery', "Answer<'GET /v1/inbox'>['data'][number]", 'One webhook an inbox received.'],
  ['Whoami', "Answer<'GET /v1/whoami'>", 'Who the API key is.'],
  ['EmbeddingsBody', "BodyOf<'POST /v1/embeddings'>", 'The body of POST /v1/embeddings (OpenAI Embeddings API).'],
  ['EmbeddingList', "Answer<'POST /v1/embeddings'>", 'What POST /v1/embeddings answers: one vector per input (floats, or base64 float32).'],
  ['ErrorEnvelope', 'ErrorBody', "The spec's error envelope."],
];

const PROBE_HEAD = `import type { Answer, BodyOf } from '@box/contract/call';
import type { ExecEvent } from '@box/contract/exec';
import type { ErrorBody } from '@box/contract/error-envelope';
`;

function printer(checker: ts.TypeChecker, named: Map<ts.Type, string>) {
  const F = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseSingleQuotesForStringLiteralType;
  const print = (t: ts.Type, indent: string, depth = 0, dropUndefined = false): string => {
    if (depth > 20) throw new Error('type too deep to print');
    if (depth > 0 && named.has(t)) return named.get(t)!;
    if (t.isUnion()) {
      const members = dropUndefined ? t.types.filter((m) => !(m.flags & ts.TypeFlags.Undefined)) : t.types;
      let parts = members.map((m) => print(m, indent, depth + 1));
      if (parts.includes('true') && parts.includes('false')) parts = [...parts.filter((p) => p !== 'true' && p !== 'false'), 'boolean'];
      return [...new Set(parts)].map((p) => (p.includes('=>') ? `(${p})` : p)).join(' | ');
    }
    if (t.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return 'unknown';
    if (!(t.flags & ts.TypeFlags.Object) && !t.isIntersection()) return checker.typeToString(t, undefined, F);
    if (checker.isArrayType(t)) {
      const el = print(checker.getTypeArguments(t as ts.TypeReference)[0]!, indent, depth + 1);
      return /[ |&]/.test(el) && !el.startsWith('{') ? `(${el})[]` : `${el}[]`;
    }
    if (checker.isTupleType(t))
      return `[${checker
        .getTypeArguments(t as ts.TypeReference)
        .map((a) => print(a, indent, depth + 1))
        .join(', ')}]`;
    const inner = indent + '  ';
    const lines: string[] = [];
    for (const info of checker.getIndexInfosOfType(t)) {
      lines.push(`${inner}[key: ${checker.typeToString(info.keyType)}]: ${print(info.type, inner, depth + 1)};`);
    }
    for (const p of checker.getPropertiesOfType(t)) {
      const optional = (p.flags & ts.SymbolFlags.Optional) !== 0;
      const pt = checker.getTypeOfSymbol(p);
      const doc = ts.displayPartsToString(p.getDocumentationComment(checker)).trim();
      if (doc) lines.push(`${inner}/** ${doc.replace(/\s*\n\s*/g, ' ')} */`);
      const name = /^[A-Za-z_$][\w$]*$/.test(p.name) ? p.name : `'${p.name}'`;
      lines.push(`${inner}${name}${optional ? '?' : ''}: ${print(pt, inner, depth + 1, optional)};`);
    }
    if (lines.length === 0) return checker.getSignaturesOfType(t, ts.SignatureKind.Call).length ? 'never' : 'Record<string, never>';
    return `{\n${lines.join('\n')}\n${indent}}`;
  };
  return print;
}

export async function generate(): Promise<string> {
  const probe = PROBE_HEAD + ENTRIES.map(([n, e]) => `export type ${n} = ${e};`).join('\n') + '\n';
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2023,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (f) => (path.resolve(f) === PROBE ? probe : readFile(f));
  host.fileExists = (
    (orig) => (f: string) =>
      path.resolve(f) === PROBE || orig(f)
  )(host.fileExists.bind(host));
  host.getSourceFile = (f, lang, ...rest) => (path.resolve(f) === PROBE ? ts.createSourceFile(f, probe, lang, true) : getSourceFile(f, lang, ...rest));
  const program = ts.createProgram([PROBE], options, host);
  const diags = ts.getPreEmitDiagnostics(program).filter((d) => d.file && path.resolve(d.file.fileName) === PROBE);
  if (diags.length) throw new Error(ts.formatDiagnostics(diags, host));
  const checker = program.getTypeChecker();
  const sf = program.getSourceFile(PROBE)!;
  const named = new Map<ts.Type, string>();
  for (const st of sf.statements) if (ts.isTypeAliasDeclaration(st)) named.set(checker.getTypeAtLocation(st.name), st.name.text);
  const print = printer(checker, named);
  const out: string[] = [
    '// GENERATED by sdk/typescript/scripts/gen-types.ts from packages/contract/src: do not edit.',
    '// `npx tsx sdk/typescript/scripts/gen-types.ts` rewrites it; the SDK tests fail when it is stale.',
    '',
  ];
  const docs = new Map(ENTRIES.map(([n, , d]) => [n, d]));
  for (const st of sf.statements) {
    if (!ts.isTypeAliasDeclaration(st)) continue;
    const name = st.name.text;
    if (!docs.has(name)) continue;
    const t = checker.getTypeAtLocation(st.name);
    out.push(`/** ${docs.get(name)} */`, `export type ${name} = ${print(t, '')};`, '');
  }
  return prettier.format(out.join('\n'), { ...(await prettier.resolveConfig(OUT)), filepath: OUT });
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(HERE, 'gen-types.ts')) {
  const text = await generate();
  if (process.argv.includes('--check')) {
    const cur = fs.existsSync(OUT) ? fs.readFileSync(OUT, 'utf8') : '';
    if (cur !== text) {
      console.error(`${OUT} is stale: run npx tsx sdk/typescript/scripts/gen-types.ts`);
      process.exit(1);
    }
  } else fs.writeFileSync(OUT, text);
}
