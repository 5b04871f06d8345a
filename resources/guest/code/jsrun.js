// JavaScript kernel of the box code daemon (kernels.py): one Node process per context.
// Cells arrive as JSON lines on the fd named by BOX_CODE_IN ({code, env}; stdin is the
// cell's, /dev/null); each runs in this process's global context (vm.runInThisContext:
// globals and top-level let/const persist across cells), its console output goes to
// stdout/stderr as usual, and its value, error and end are reported as JSON lines on the
// fd named by BOX_CODE_FD. SIGINT interrupts a running cell.
'use strict';
const fs = require('fs');
const util = require('util');
const vm = require('vm');
const readline = require('readline');
const net = require('net');

const fd = Number(process.env.BOX_CODE_FD);
const report = (e) => fs.writeSync(fd, JSON.stringify(e) + '\n');
const requests = new net.Socket({ fd: Number(process.env.BOX_CODE_IN), readable: true, writable: false });
delete process.env.BOX_CODE_IN;
// import() in cells needs --experimental-vm-modules (kernels.py): its warning is ours, not the cell's
const emitWarning = process.emitWarning;
process.emitWarning = (w, ...rest) => (/VM Modules/.test(String(w && w.message ? w.message : w)) ? undefined : emitWarning.call(process, w, ...rest));
globalThis.require = require;
globalThis.module = module;
let count = 0;
let interrupt = null; // rejects the awaited value of the running cell
process.on('SIGINT', () => interrupt && interrupt()); // between cells an interrupt changes nothing
process.on('uncaughtException', (e) => process.stderr.write(`Uncaught ${e && e.stack ? e.stack : e}\n`));
process.on('unhandledRejection', (e) => process.stderr.write(`Unhandled rejection: ${e && e.stack ? e.stack : e}\n`));

function errorOf(e) {
  if (e instanceof Error || (e && typeof e === 'object' && 'stack' in e)) {
    return { name: e.name || 'Error', value: e.message || String(e), traceback: String(e.stack || e) };
  }
  return { name: 'Error', value: String(e), traceback: `Uncaught ${util.inspect(e)}` };
}

function resultOf(value) {
  const r = { 'text/plain': util.inspect(value, { depth: 4, colors: false }), is_main_result: true };
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype) {
    try {
      r['application/json'] = JSON.parse(JSON.stringify(value));
    } catch {
      // not JSON-able: text only
    }
  }
  return r;
}

// TypeScript contexts (BOX_CODE_TS=1): each cell is transpiled first (types removed, no
// type check), with Debian's TypeScript compiler (node-typescript)
const TS = process.env.BOX_CODE_TS === '1';
delete process.env.BOX_CODE_TS;
let ts = null;
function transpile(code) {
  ts ??= require(fs.existsSync('/usr/share/nodejs/typescript') ? '/usr/share/nodejs/typescript' : 'typescript');
  const out = ts.transpileModule(code, { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext }, reportDiagnostics: false });
  return out.outputText.replace(/^export \{\};\s*$/m, '');
}

// ES module imports at the top level of a cell become dynamic imports whose bindings are
// globals, so they stay for the next cells as a script's declarations do:
//   import x, { a, b as c } from 'm'   import * as ns from 'm'   import 'm'
const IMPORT = /^([ \t]*)import\s+(?:([\w$]+)\s*,?\s*)?(?:\*\s*as\s+([\w$]+)|\{([^}]*)\})?\s*(?:from\s*)?(['"])([^'"\n]+)\5[ \t]*;?[ \t]*$/gm;
let imports = 0;
function rewriteImports(code) {
  return code.replace(IMPORT, (all, indent, def, ns, names, _q, spec) => {
    if (!def && !ns && names === undefined && !/^[ \t]*import\s*['"]/.test(all)) return all;
    const m = `__box_import${imports++}`;
    const out = [`const ${m} = await import(${JSON.stringify(spec)});`];
    if (def) out.push(`globalThis.${def} = ${m}.default;`);
    if (ns) out.push(`globalThis.${ns} = ${m};`);
    for (const part of (names ?? '').split(',').map((p) => p.trim()).filter(Boolean)) {
      const [from, to] = part.split(/\s+as\s+/);
      out.push(`globalThis.${(to ?? from).trim()} = ${m}[${JSON.stringify(from.trim())}];`);
    }
    return indent + out.join(' ');
  });
}

// import() in a cell: bare names resolve from the context's working directory first
const { builtinModules } = require('module');
const { pathToFileURL } = require('url');
function importModule(spec) {
  if (!builtinModules.includes(spec) && !/^(node|file|data):/.test(spec)) {
    try {
      return import(pathToFileURL(require.resolve(spec, { paths: [process.cwd()] })).href);
    } catch {
      // not found from there: as Node resolves it
    }
  }
  return import(spec);
}
const scriptOptions = (filename, lineOffset = 0) => ({ filename, lineOffset, importModuleDynamically: importModule });

function compile(code) {
  if (TS) code = transpile(code);
  code = rewriteImports(code);
  try {
    return { script: new vm.Script(code, scriptOptions(`cell${count}.js`)) };
  } catch (e) {
    // top-level await: run the cell as an async function; its top-level `const x =`,
    // `let x =` and `var x =` assign globals instead, so they outlive the cell
    if (e instanceof SyntaxError && /await/.test(e.message)) {
      const body = code.replace(/^(const|let|var)\s+([\w$]+)\s*=/gm, 'globalThis.$2 =');
      // its last line is its value when it is an expression
      const lines = body.replace(/\s+$/, '').split('\n');
      const last = lines.pop().replace(/;$/, '');
      const opts = scriptOptions(`cell${count}.js`, -1);
      try {
        return { script: new vm.Script(`(async () => {\n${lines.join('\n')}\nreturn (${last}\n);})()`, opts) };
      } catch {
        return { script: new vm.Script(`(async () => {\n${body}\n})()`, opts) };
      }
    }
    return { error: e };
  }
}

async function run(req) {
  count++;
  const saved = {};
  for (const [k, v] of Object.entries(req.env || {})) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
  try {
    const c = compile(req.code);
    if (c.error) throw c.error;
    let value = c.script.runInThisContext({ breakOnSigint: true, displayErrors: false });
    if (value && typeof value.then === 'function') {
      const stopped = new Promise((_, reject) => {
        interrupt = () => reject(Object.assign(new Error('Script execution interrupted.'), { name: 'KeyboardInterrupt' }));
      });
      value = await Promise.race([value, stopped]);
    }
    if (value !== undefined) report({ type: 'result', result: resultOf(value) });
  } catch (e) {
    const err = errorOf(e);
    if (/^Script execution (was )?interrupted/.test(err.value)) err.name = 'KeyboardInterrupt';
    report({ type: 'error', error: err });
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    interrupt = null;
    report({ type: 'end', execution_count: count });
  }
}

let queue = Promise.resolve();
readline.createInterface({ input: requests }).on('line', (line) => {
  const req = JSON.parse(line);
  if (req.setenv) return void Object.assign(process.env, req.setenv);
  if (req.chdir) return void (queue = queue.then(() => process.chdir(req.chdir)));
  queue = queue.then(() => run(req));
});
