#!/usr/bin/env node
// Builds dist/ (ESM JavaScript + .d.ts) from src/, which is typed against the shared contract
// (packages/contract/src): the generated src/types.ts must be current (gen-types.ts --check),
// then tsc compiles src/ with the contract in view and only the SDK's own files are kept.
// The published package has no dependencies: the contract is used for types only, and its
// data types are printed into src/types.ts. Run by `npm pack` (prepack) and the SDK tests.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const here = path.resolve(import.meta.dirname, '..');
const root = path.resolve(here, '../..');
const bin = (name) => path.join(root, 'node_modules/.bin', name);
const run = (cmd, args) => execFileSync(cmd, args, { cwd: here, stdio: 'inherit' });

run(bin('tsx'), ['scripts/gen-types.ts', '--check']);
fs.rmSync(path.join(here, 'build'), { recursive: true, force: true });
run(bin('tsc'), ['-p', 'tsconfig.json']);
const out = path.join(here, 'dist');
fs.rmSync(out, { recursive: true, force: true });
fs.cpSync(path.join(here, 'build/sdk/typescript/src'), out, { recursive: true });
fs.rmSync(path.join(here, 'build'), { recursive: true, force: true });
fs.rmSync(path.join(out, 'ops.d.ts')); // internal, typed by the contract; nothing public refers to it

// Nothing published may reach outside the package (the contract, zod).
for (const f of fs.readdirSync(out)) {
  const text = fs.readFileSync(path.join(out, f), 'utf8');
  for (const m of text.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)) {
    const spec = m[1];
    if (spec.startsWith('node:')) continue;
    const target = path.resolve(out, spec.replace(/\.js$/, f.endsWith('.d.ts') ? '.d.ts' : '.js'));
    if (!spec.startsWith('./') || !fs.existsSync(target)) throw new Error(`dist/${f} imports ${spec}, which is not in the package`);
  }
}
console.log(`built ${path.relative(process.cwd(), out)}: ${fs.readdirSync(out).length} files`);
