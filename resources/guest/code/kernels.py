"""Kernels of the box code daemon: Python through Jupyter (ipykernel + jupyter_client),
JavaScript (Node) and bash as child processes that report on fd 3."""

import asyncio
import codecs
import json
import os
import shlex
import signal
import subprocess

INTERRUPT_GRACE_S = 5


class JupyterKernel:
    """An ipykernel process, driven over Jupyter's protocol by jupyter_client."""

    def __init__(self, cwd, env, connection_file):
        from jupyter_client.manager import AsyncKernelManager

        self.km = AsyncKernelManager(kernel_name="python3", connection_file=connection_file)
        self.cwd, self.env = cwd, env
        self.kc = None
        self.waiters = {}  # msg_id -> queue of iopub/shell messages
        self.pump = None

    async def start(self):
        os.makedirs(self.cwd, exist_ok=True)
        # parent_handle=0: no thread waking every second to watch the daemon (idle boxes stay idle)
        await self.km.start_kernel(cwd=self.cwd, env=self.env, extra_arguments=["--IPKernelApp.parent_handle=0"])
        self.kc = self.km.client()
        self.kc.start_channels()
        await self.kc.wait_for_ready(timeout=120)
        self.pump = [asyncio.ensure_future(self._pump(self.kc.get_iopub_msg)), asyncio.ensure_future(self._pump(self.kc.get_shell_msg))]

    async def _pump(self, get):
        while True:
            try:
                msg = await get(timeout=3600)
            except asyncio.CancelledError:
                raise
            except Exception:
                continue
            q = self.waiters.get(msg.get("parent_header", {}).get("msg_id"))
            if q is not None:
                q.put_nowait(msg)

    async def alive(self):
        return await self.km.is_alive()

    async def stop(self):
        for t in self.pump or []:
            t.cancel()
        if self.kc:
            self.kc.stop_channels()
        if self.km.has_kernel:
            await self.km.shutdown_kernel(now=True)

    async def set_env(self, env):
        self.kc.execute("import os as __box_os\n__box_os.environ.update(%r)\ndel __box_os" % (env,), silent=True, store_history=False)

    async def execute(self, code, env, timeout, out, silent=False):
        """Runs one cell; answers None, or a description when the kernel died under it."""
        if env:
            # per-run variables: in os.environ for this cell only (silent cells around it)
            self.kc.execute(_ENV_SET % (list(env), env), silent=True, store_history=False)
        msg_id = self.kc.execute(code, store_history=not silent, allow_stdin=False)
        if env:
            self.kc.execute(_ENV_RESTORE, silent=True, store_history=False)
        q = asyncio.Queue()
        self.waiters[msg_id] = q
        loop = asyncio.get_event_loop()
        deadline = loop.time() + timeout if timeout else None
        interrupted_at = None
        idle = replied = False
        try:
            while not (idle and replied):
                wait = 1.0
                if deadline is not None:
                    wait = max(0.01, min(wait, deadline - loop.time()))
                try:
                    msg = await asyncio.wait_for(q.get(), wait)
                except asyncio.TimeoutError:
                    if not await self.km.is_alive():
                        return "The kernel process exited while running the cell."
                    now = loop.time()
                    if deadline is not None and now >= deadline:
                        if interrupted_at is None:
                            interrupted_at = now
                            await self.km.interrupt_kernel()
                            deadline = now + INTERRUPT_GRACE_S
                        else:
                            await self.km.restart_kernel(now=True)
                            return "The cell did not stop on an interrupt; the kernel was restarted."
                    continue
                self._take(msg, out)
                t = msg["header"]["msg_type"]
                if t == "status" and msg["content"].get("execution_state") == "idle":
                    idle = True
                elif t == "execute_reply":
                    replied = True
                    out.execution_count = msg["content"].get("execution_count")
            if interrupted_at is not None and out.error and out.error["name"] == "KeyboardInterrupt":
                out.error["value"] = "The cell ran past its %g s timeout and was interrupted." % timeout
            return None
        finally:
            self.waiters.pop(msg_id, None)

    def _take(self, msg, out):
        t, c = msg["header"]["msg_type"], msg["content"]
        if t == "stream":
            out.stream(c.get("name", "stdout"), c.get("text", ""))
        elif t == "execute_result":
            out.execution_count = c.get("execution_count")
            out.result(c.get("data", {}), True)
        elif t == "display_data":
            out.result(c.get("data", {}), False)
        elif t == "error":
            out.fail(c.get("ename", "Error"), c.get("evalue", ""), "\n".join(c.get("traceback", [])))


_ENV_SET = "import os as __box_os\n__box_saved = {k: __box_os.environ.get(k) for k in %r}\n__box_os.environ.update(%r)"
_ENV_RESTORE = "[__box_os.environ.pop(k, None) if v is None else __box_os.environ.__setitem__(k, v) for k, v in __box_saved.items()]"


BASH_PRELUDE = (
    "exec 3>&$BOX_CODE_FD; unset BOX_CODE_FD\n"
    "trap 'echo KeyboardInterrupt >&2; return 130' INT\n"
)


class PipeKernel:
    """JavaScript (Node) or bash: a child process in its own session; what it reports comes
    on a pipe of its own (BOX_CODE_FD), its stdout and stderr are the cell's."""

    def __init__(self, language, cwd, env, home):
        self.language, self.cwd, self.env, self.home = language, cwd, env, home
        self.proc = None
        self.count = 0
        self.out = None
        self.done = None
        self.buf = b""
        self.decoders = {}

    async def start(self):
        os.makedirs(self.cwd, exist_ok=True)
        r, w = os.pipe()
        env = dict(self.env, BOX_CODE_FD=str(w))
        if self.language == "javascript":
            argv = ["node", os.path.join(self.home, "jsrun.js")]
        else:
            argv = ["bash", "--norc", "--noprofile"]
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            pass_fds=(w,), cwd=self.cwd, env=env, start_new_session=True,
        )
        os.close(w)
        self.events = r
        self.count = 0
        loop = asyncio.get_event_loop()
        for f in (self.proc.stdout.fileno(), self.proc.stderr.fileno(), r):
            os.set_blocking(f, False)
        self.decoders = {n: codecs.getincrementaldecoder("utf-8")("replace") for n in ("stdout", "stderr")}
        loop.add_reader(self.proc.stdout.fileno(), self._read, "stdout")
        loop.add_reader(self.proc.stderr.fileno(), self._read, "stderr")
        loop.add_reader(r, self._events)
        if self.language == "bash":
            self._send(BASH_PRELUDE)

    def _send(self, text):
        self.proc.stdin.write(text.encode())
        self.proc.stdin.flush()

    def _read(self, name, drain=False):
        fd = (self.proc.stdout if name == "stdout" else self.proc.stderr).fileno()
        while True:
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                return
            except OSError:
                chunk = b""
            if not chunk:
                asyncio.get_event_loop().remove_reader(fd)
                return
            text = self.decoders[name].decode(chunk)
            if text and self.out:
                self.out.stream(name, text)
            if not drain:
                return

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
            self.out.result(e["result"], True)
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
        if self.language == "javascript":
            self._send(json.dumps({"setenv": env}) + "\n")
        else:
            self._send("".join("export %s=%s\n" % (n, shlex.quote(v)) for n, v in env.items()))

    async def execute(self, code, env, timeout, out, silent=False):
        self.out = out
        self.done = asyncio.get_event_loop().create_future()
        try:
            if self.language == "javascript":
                self._send(json.dumps({"code": code, "env": env}) + "\n")
            else:
                cell = os.path.join(self.home, "cell-%d.sh" % self.proc.pid)
                with open(cell, "w") as f:
                    f.write(code + "\n")
                assigns = " ".join("%s=%s" % (k, shlex.quote(v)) for k, v in env.items())
                self._send('%s source %s; echo "end $?" >&3\n' % (assigns, cell))
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
            if self.language == "javascript":
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
        for f in (self.proc.stdout.fileno(), self.proc.stderr.fileno(), self.events):
            loop.remove_reader(f)
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            f.close()
        os.close(self.events)
        self.proc = None
