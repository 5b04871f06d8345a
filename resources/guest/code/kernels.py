"""Kernels of the box code daemon: one child process per context, its stdout and stderr the
cell's, what it reports (results, error, end) on a pipe of its own. Python is ipykernel's
in-process kernel (pyrun.py), JavaScript is Node (jsrun.js), R is R (rrun.R), bash is bash."""

import asyncio
import codecs
import json
import os
import shlex
import signal
import subprocess
import sys

INTERRUPT_GRACE_S = 5
# how long the start of a line waits for its end before it goes out alone
PARTIAL_LINE_S = 0.05


BASH_PRELUDE = (
    "exec 3>&$BOX_CODE_FD; unset BOX_CODE_FD\n"
    "trap 'echo KeyboardInterrupt >&2; return 130' INT\n"
)


class PipeKernel:
    """A context's kernel: a child process in its own session; what it reports comes on a
    pipe of its own (BOX_CODE_FD), its stdout and stderr are the cell's. Cells never read
    their requests: Python, JavaScript and R take them on another pipe (BOX_CODE_IN), their
    stdin is /dev/null; bash reads its commands on stdin and runs each cell from /dev/null."""

    def __init__(self, language, cwd, env, home):
        self.language, self.cwd, self.env, self.home = language, cwd, env, home
        self.proc = None
        self.count = 0
        self.out = None
        self.done = None
        self.buf = b""
        self.decoders = {}
        self.partial = {"stdout": "", "stderr": ""}
        self.partial_timers = {}

    async def start(self):
        os.makedirs(self.cwd, exist_ok=True)
        r, w = os.pipe()
        env = dict(self.env, BOX_CODE_FD=str(w))
        fds = [w]
        requests = None
        if self.language != "bash":
            requests, theirs = os.pipe()[::-1]
            env["BOX_CODE_IN"] = str(theirs)
            fds.append(theirs)
        if self.language == "python":
            argv = [sys.executable, os.path.join(self.home, "pyrun.py")]
        elif self.language in ("javascript", "typescript"):
            # import() in a cell is a vm.Script's dynamic import: behind this flag on Node 18
            argv = ["node", "--experimental-vm-modules", os.path.join(self.home, "jsrun.js")]
            env["BOX_CODE_TS"] = "1" if self.language == "typescript" else "0"
        elif self.language == "r":
            argv = ["Rscript", os.path.join(self.home, "rrun.R")]
        else:
            argv = ["bash", "--norc", "--noprofile"]
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE if requests is None else subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            pass_fds=fds, cwd=self.cwd, env=env, start_new_session=True,
        )
        for f in fds:
            os.close(f)
        self.requests = self.proc.stdin if requests is None else os.fdopen(requests, "wb")
        self.events = r
        self.count = 0
        loop = asyncio.get_event_loop()
        for f in (self.proc.stdout.fileno(), self.proc.stderr.fileno(), r):
            os.set_blocking(f, False)
        self.decoders = {n: codecs.getincrementaldecoder("utf-8")("replace") for n in ("stdout", "stderr")}
        self.partial = {"stdout": "", "stderr": ""}
        loop.add_reader(self.proc.stdout.fileno(), self._read, "stdout")
        loop.add_reader(self.proc.stderr.fileno(), self._read, "stderr")
        loop.add_reader(r, self._events)
        if self.language == "bash":
            self._send(BASH_PRELUDE)

    def _send(self, text):
        self.requests.write(text.encode())
        self.requests.flush()

    def _read(self, name, drain=False):
        fd = (self.proc.stdout if name == "stdout" else self.proc.stderr).fileno()
        while True:
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                break
            except OSError:
                chunk = b""
            if not chunk:
                asyncio.get_event_loop().remove_reader(fd)
                break
            self._stream(name, self.decoders[name].decode(chunk))
            if not drain:
                break
        if drain:
            self._flush_partial(name)

    def _stream(self, name, text):
        """Whole lines go out at once; the rest of a line waits a moment for its end (a
        program that writes "text" then "\n" gives one line, as Jupyter's streams batch it)."""
        text = self.partial[name] + text
        cut = text.rfind("\n") + 1
        self.partial[name] = text[cut:]
        if cut and self.out:
            self.out.stream(name, text[:cut])
        if self.partial[name] and name not in self.partial_timers:
            self.partial_timers[name] = asyncio.get_event_loop().call_later(PARTIAL_LINE_S, self._flush_partial, name)

    def _flush_partial(self, name):
        timer = self.partial_timers.pop(name, None)
        if timer:
            timer.cancel()
        text, self.partial[name] = self.partial[name], ""
        if text and self.out:
            self.out.stream(name, text)

    def _events(self):
        try:
            chunk = os.read(self.events, 65536)
        except BlockingIOError:
            return
        if not chunk:
            asyncio.get_event_loop().remove_reader(self.events)
            if self.done and not self.done.done():
                self.done.set_result("exited")
            return
        self.buf += chunk
        while b"\n" in self.buf:
            line, self.buf = self.buf.split(b"\n", 1)
            self._event(line.decode("utf-8", "replace"))

    def _event(self, line):
        if self.language == "bash":
            code = int(line.split()[1]) if line.startswith("end ") else 0
            self.count += 1
            self._drain()
            if self.out and code != 0 and not self.out.error:
                self.out.fail("ExitCode" if code != 130 else "KeyboardInterrupt", "exit status %d" % code, "")
            if self.done and not self.done.done():
                self.done.set_result(None)
            return
        e = json.loads(line)
        if e["type"] == "result" and self.out:
            self._drain()
            self.out.result(e["result"], e.get("main", True))
        elif e["type"] == "error" and self.out:
            self._drain()
            self.out.fail(e["error"]["name"], e["error"]["value"], e["error"]["traceback"])
        elif e["type"] == "end":
            self.count = e.get("execution_count", self.count)
            self._drain()
            if self.done and not self.done.done():
                self.done.set_result(None)

    def _drain(self):
        # what the cell wrote before its end is already in the pipes: take it first
        for name in ("stdout", "stderr"):
            self._read(name, drain=True)

    async def set_env(self, env):
        if self.language != "bash":
            self._send(json.dumps({"setenv": env}) + "\n")
        else:
            self._send("".join("export %s=%s\n" % (n, shlex.quote(v)) for n, v in env.items()))

    async def chdir(self, path):
        """The kernel's working directory (before a cell: the default context E2B asks for in /home/user)."""
        os.makedirs(path, exist_ok=True)
        self.cwd = path
        if self.language != "bash":
            self._send(json.dumps({"chdir": path}) + "\n")
        else:
            self._send("cd %s\n" % shlex.quote(path))

    async def execute(self, code, env, timeout, out, silent=False):
        self.out = out
        self.done = asyncio.get_event_loop().create_future()
        try:
            if self.language != "bash":
                self._send(json.dumps({"code": code, "env": env, "silent": silent}) + "\n")
            else:
                cell = os.path.join(self.home, "cell-%d.sh" % self.proc.pid)
                with open(cell, "w") as f:
                    f.write(code + "\n")
                assigns = " ".join("%s=%s" % (k, shlex.quote(v)) for k, v in env.items())
                self._send('%s source %s </dev/null; echo "end $?" >&3\n' % (assigns, cell))
            try:
                r = await asyncio.wait_for(asyncio.shield(self.done), timeout)
            except asyncio.TimeoutError:
                self.interrupt()
                try:
                    r = await asyncio.wait_for(asyncio.shield(self.done), INTERRUPT_GRACE_S)
                except asyncio.TimeoutError:
                    await self.stop()
                    return "The cell did not stop on an interrupt; the kernel was stopped."
                if out.error and out.error["name"] == "KeyboardInterrupt":
                    out.error["value"] = "The cell ran past its %g s timeout and was interrupted." % timeout
            out.execution_count = self.count
            return "The %s process exited." % self.language if r == "exited" else None
        finally:
            self.out = None

    def interrupt(self):
        try:
            if self.language != "bash":
                os.kill(self.proc.pid, signal.SIGINT)
            else:
                os.killpg(self.proc.pid, signal.SIGINT)
        except ProcessLookupError:
            pass

    async def alive(self):
        return self.proc is not None and self.proc.poll() is None

    async def stop(self):
        if self.proc is None:
            return
        loop = asyncio.get_event_loop()
        for timer in self.partial_timers.values():
            timer.cancel()
        self.partial_timers = {}
        for f in (self.proc.stdout.fileno(), self.proc.stderr.fileno(), self.events):
            loop.remove_reader(f)
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()
        for f in {self.requests, self.proc.stdin, self.proc.stdout, self.proc.stderr} - {None}:
            f.close()
        os.close(self.events)
        self.proc = None
