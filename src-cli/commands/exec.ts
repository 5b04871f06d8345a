import { intArg, parse, splitDashDash, type Command } from '../args.js';
import { CliError } from '../errors.js';
import { exitCodeOf, runExec, type ExecRequest } from '../exec-stream.js';
import { resolveBoxId } from '../resolve.js';
import { StdinPump } from '../stdin-pump.js';
import { Terminal } from '../terminal.js';

/**
 * `box exec <box> [-i] [--tty] -- <cmd...>`: one argument runs under `/bin/sh -c` (so pipes
 * and globs work), several run as argv. Output streams to stdout/stderr as it comes; the
 * CLI exits with the command's exit code. Ctrl-C (without --tty) cancels the command.
 */
export const exec: Command = {
  usage: 'box exec <box> [-i] [-t|--tty] [--cwd dir] [--env K=V]... [--user u] [--timeout s] -- <cmd...>',
  summary: "Run a command in a box; -i sends stdin, --tty gives it a terminal; exits with the command's code",
  async run(ctx, argv) {
    const [head, cmd] = splitDashDash(argv);
    const { values, positionals } = parse(
      head,
      this.usage,
      {
        interactive: { type: 'boolean', short: 'i' },
        tty: { type: 'boolean', short: 't' },
        cwd: { type: 'string' },
        env: { type: 'string', multiple: true },
        user: { type: 'string' },
        timeout: { type: 'string' },
        reason: { type: 'string' },
      },
      [1, cmd ? 1 : 99],
    );
    const words = cmd ?? positionals.slice(1);
    if (words.length === 0) throw new CliError(`no command given\nusage: ${this.usage}`, 2);
    const env: Record<string, string> = {};
    for (const kv of values.env ?? []) {
      const i = kv.indexOf('=');
      if (i <= 0) throw new CliError(`--env ${kv}: expected NAME=value`, 2);
      env[kv.slice(0, i)] = kv.slice(i + 1);
    }
    const boxId = await resolveBoxId(ctx.client, positionals[0]!);
    const term = values.tty ? new Terminal() : undefined;
    const req: ExecRequest = {
      command: words.length === 1 ? words[0]! : words,
      cwd: values.cwd,
      env: Object.keys(env).length ? env : undefined,
      user: values.user,
      timeout: intArg(values.timeout, 'timeout', 1),
      open_stdin: values.interactive || values.tty ? true : undefined,
      tty: term?.size(),
    };

    let pump: StdinPump | undefined;
    let execId = '';
    let finished = false;
    let interrupts = 0;
    const onSigint = () => {
      if (!execId) process.exit(130);
      interrupts++;
      void ctx.client
        .call('POST /v1/boxes/:box_id/exec/:exec_id/cancel', { params: { box_id: boxId, exec_id: execId }, body: { force: interrupts > 1 } })
        .catch(() => {});
    };
    if (!term) process.on('SIGINT', onSigint);
    try {
      const outcome = await runExec(ctx.client, boxId, req, {
        onStarted(id) {
          execId = id;
          if (!req.open_stdin) return;
          pump = new StdinPump(ctx.client, boxId, id, (e) => {
            if (!finished) process.stderr.write(`box: stdin: ${e.message}\n`);
          });
          term?.start(
            (cols, rows) =>
              void ctx.client
                .call('POST /v1/boxes/:box_id/exec/:exec_id/resize', { params: { box_id: boxId, exec_id: id }, body: { cols, rows } })
                .catch(() => {}),
          );
          process.stdin.on('data', (d: Buffer) => pump!.write(d));
          process.stdin.on('end', () => pump!.end());
          process.stdin.resume();
        },
        onOutput(stream, data) {
          (stream === 'stdout' ? process.stdout : process.stderr).write(data);
        },
      });
      finished = true;
      for (const e of outcome.errors) process.stderr.write(`box: ${e.code}: ${e.message}\n`);
      if (outcome.status === 'timed_out') process.stderr.write('box: the command timed out\n');
      return exitCodeOf(outcome);
    } finally {
      finished = true;
      pump?.stop();
      term?.stop();
      process.stdin.pause();
      process.stdin.unref?.();
      process.off('SIGINT', onSigint);
    }
  },
};
