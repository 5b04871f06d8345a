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

function compile(code) {
  try {
    return { script: new vm.Script(code, { filename: `cell${count}.js` }) };
  } catch (e) {
    // top-level await: run the cell as an async function (its declarations stay local)
    if (e instanceof SyntaxError && /await/.test(e.message)) {
      // its last line is its value when it is an expression
      const lines = code.replace(/\s+$/, '').split('\n');
      const last = lines.pop().replace(/;$/, '');
      const opts = { filename: `cell${count}.js`, lineOffset: -1 };
      try {
        return { script: new vm.Script(`(async () => {\n${lines.join('\n')}\nreturn (${last}\n);})()`, opts) };
      } catch {
        return { script: new vm.Script(`(async () => {\n${code}\n})()`, opts) };
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
  queue = queue.then(() => run(req));
});
