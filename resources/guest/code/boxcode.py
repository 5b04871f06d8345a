"""Box code interpreter: the in-guest daemon behind /v1/boxes/{id}/code (issue 25).

Runs inside the box as its own session (setsid), so it outlives the command that started
it and is carried along by pause/resume, sleep/wake, checkpoints and forks with the VM's
memory. Listens on 127.0.0.1:PORT; the host reaches it through one long-running exec of
`bash` (/dev/tcp) per box and speaks JSON lines:

  request  {"rid": n, "op": "create"|"list"|"delete"|"restart"|"run", ...}
  events   {"rid": n, "type": "stdout"|"stderr", "data": str}
           {"rid": n, "type": "result", "result": {...mime: data, "is_main_result": bool}}
           {"rid": n, "type": "error", "error": {"name", "value", "traceback"}}
           {"rid": n, "type": "end", "execution": {...}} | {"rid": n, "type": "reply", ...}
           {"rid": n, "type": "fail", "code": str, "message": str}

Every context is a child process driven by kernels.py: Python is ipykernel's in-process
kernel (pyrun.py), JavaScript is Node (jsrun.js), bash is bash.
"""

import asyncio
import gc
import json
import os
import re
import signal
import socket
import sys
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kernels import PipeKernel  # noqa: E402

PORT = int(os.environ.get("BOX_CODE_PORT", "49999"))
HOME = os.path.dirname(os.path.abspath(__file__))
OUTPUT_CAP = int(os.environ.get("BOX_CODE_OUTPUT_CAP", str(1024 * 1024)))
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")

DEFAULT_PREFIX = "ctx_default_"
LANGUAGES = ("python", "javascript", "typescript", "r", "bash")


def missing_languages():
    """The languages whose runtime is not in this box: a box started from the guest image's
    base, before the code interpreter's layer was ready (issue 35), has no ipykernel, no
    Node and no R. Told on every connection (op env), so the service answers a run of them plainly."""
    import importlib.util
    import shutil

    out = [] if importlib.util.find_spec("ipykernel") else ["python"]
    if not shutil.which("node"):
        out += ["javascript", "typescript"]
    if not shutil.which("Rscript") or not os.path.isdir("/usr/lib/R/site-library/IRdisplay"):
        out += ["r"]
    return out
contexts = {}  # id -> Context
defaults = {}  # language -> id
starting = {}  # language -> the start of its default context
# the box's own environment (egress proxy, inference variables): sent by the host on each
# connection, it reaches kernels started before it (the template's) before their next cell
box_env = {"vars": {}, "version": 0}
# a daemon started where one ran before (its marker, with its pid, in this tmpfs) follows one that stopped:
# every context it had is gone, and the next run says so
MARKER = os.path.join(HOME, "daemon.started")
RESTARTED = os.path.exists(MARKER)
reset_unreported = [RESTARTED]
RESET_NOTICE = "[box] The code interpreter in this box restarted (its process had stopped): every context was reset, earlier variables and imports are gone.\n"

# the template's warm-up: the default Python context with the data stack imported and a
# chart drawn once, so a new box's first cell pays none of it
WARM_CODE = """
import numpy as np
import pandas as pd
import matplotlib
import matplotlib.pyplot as plt
from IPython.core.pylabtools import print_figure as __box_print_figure
# a chart drawn as a cell's would be (the inline backend's PNG: fonts, text layout, encoder)
__box_fig = plt.figure(); plt.plot(range(10), range(10)); plt.title("t"); __box_print_figure(__box_fig, "png"); plt.close(__box_fig)
pd.DataFrame({"a": [1]})._repr_html_()
del __box_fig, __box_print_figure
# what is in memory now is shared by every clone of the template: the garbage collector
# leaves it alone from here on, so a cell does not copy the whole heap into the box
import gc
gc.freeze()
"""

# a first cell's own work, formatting its result included, leaving nothing behind
TOUCH_CODE = "get_ipython().display_formatter.format(1 + 1)"


def now_iso():
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + ".%03dZ" % (int(time.time() * 1000) % 1000)


class Context:
    def __init__(self, cid, language, cwd, env):
        self.id = cid
        self.language = language
        self.cwd = cwd or "/root"
        self.env = env or {}
        self.created_at = now_iso()
        self.kernel = None
        self.status = "starting"
        self.lock = asyncio.Lock()
        self.env_version = 0
        self.runs = 0  # cells run for a client (the template's warm-up is not one)

    def view(self):
        return {"id": self.id, "language": self.language, "cwd": self.cwd, "created_at": self.created_at, "status": self.status}

    async def start(self):
        self.status = "starting"
        env = dict(os.environ)
        env.update(box_env["vars"])
        env.update(self.env)
        self.env_version = box_env["version"]
        self.kernel = PipeKernel(self.language, self.cwd, env, HOME)
        await self.kernel.start()
        if self.id == DEFAULT_PREFIX + "python":
            # the default Python context always has the data stack imported, also after a restart
            await self.kernel.execute(WARM_CODE, {}, 600, Output(lambda e: None, 0, OUTPUT_CAP), silent=True)
        self.status = "idle"

    async def stop(self):
        if self.kernel:
            await self.kernel.stop()
        self.kernel = None


class Output:
    """What one run produced, with the output cap applied to stdout and stderr."""

    def __init__(self, send, rid, cap):
        self.send, self.rid, self.cap = send, rid, cap
        self.stdout, self.stderr, self.results = [], [], []
        self.size = 0
        self.truncated = False
        self.error = None
        self.execution_count = None

    def stream(self, name, text):
        if self.truncated:
            return
        room = self.cap - self.size
        if len(text) > room:
            text = text[:room] + "\n[output truncated: over the %d-byte cap]\n" % self.cap
            self.truncated = True
        self.size += len(text)
        (self.stdout if name == "stdout" else self.stderr).append(text)
        self.send({"rid": self.rid, "type": name, "data": text})

    def result(self, data, main):
        r = {k: v for k, v in data.items()}
        r["is_main_result"] = main
        self.results.append(r)
        self.send({"rid": self.rid, "type": "result", "result": r})

    def fail(self, name, value, traceback):
        self.error = {"name": name, "value": value, "traceback": ANSI.sub("", traceback)}
        self.send({"rid": self.rid, "type": "error", "error": self.error})


running = {}  # rid of a run -> its context, while the run is in flight (for "cancel")


async def run(send, req):
    ctx = await context_for(req)
    out = Output(send, req["rid"], OUTPUT_CAP)
    running[req["rid"]] = ctx
    try:
        await run_in(ctx, send, req, out)
    finally:
        running.pop(req["rid"], None)


async def run_in(ctx, send, req, out):
    if reset_unreported[0]:
        reset_unreported[0] = False
        out.stream("stderr", RESET_NOTICE)
    t0 = time.monotonic()
    async with ctx.lock:
        if ctx.kernel is None or ctx.status == "dead" or not await ctx.kernel.alive():
            # a kernel that died is started again on the next run (its state is gone); one
            # reported dead counts as dead even while its process is not reaped yet (it has
            # closed its pipes, so poll() may still see it for a moment under load)
            await ctx.stop()
            await ctx.start()
        ctx.status = "busy"
        try:
            # a default context nobody has run a cell in yet moves where the client asks (E2B's
            # default contexts work in /home/user; the template's warm one started elsewhere)
            if req.get("cwd") and ctx.runs == 0 and ctx.id.startswith(DEFAULT_PREFIX) and req["cwd"] != ctx.cwd:
                await ctx.kernel.chdir(req["cwd"])
                ctx.cwd = req["cwd"]
            ctx.runs += 1
            if ctx.env_version != box_env["version"]:
                await ctx.kernel.set_env(box_env["vars"])
                ctx.env_version = box_env["version"]
            died = await ctx.kernel.execute(req["code"], req.get("env") or {}, req.get("timeout"), out)
        finally:
            ctx.status = "idle"
        if died:
            ctx.status = "dead"
            out.fail("KernelDied", "The %s kernel died; it restarts on the next run." % ctx.language, died)
    execution = {
        "context_id": ctx.id,
        "language": ctx.language,
        "execution_count": out.execution_count,
        "results": out.results,
        "stdout": "".join(out.stdout),
        "stderr": "".join(out.stderr),
        "error": out.error,
        "truncated": out.truncated,
        "duration_ms": round((time.monotonic() - t0) * 1000, 1),
    }
    send({"rid": req["rid"], "type": "end", "execution": execution})


class NotFound(Exception):
    pass


async def context_for(req):
    cid = req.get("context_id")
    if cid and cid not in contexts and cid.startswith(DEFAULT_PREFIX) and cid[len(DEFAULT_PREFIX):] in LANGUAGES:
        # a default context listed before it started (list op "defaults"): started now
        req = dict(req, context_id=None, language=cid[len(DEFAULT_PREFIX):])
        cid = None
    if cid:
        if cid not in contexts:
            raise NotFound(cid)
        return contexts[cid]
    lang = req.get("language") or "python"
    cid = defaults.get(lang)
    if cid in contexts:
        return contexts[cid]
    # concurrent first runs share one start (two kernels on one connection file corrupt it)
    if lang not in starting:
        starting[lang] = asyncio.ensure_future(create({"language": lang, "cwd": req.get("cwd")}, default=True))
        starting[lang].add_done_callback(lambda _: starting.pop(lang, None))
    return await asyncio.shield(starting[lang])


async def create(req, default=False):
    lang = req.get("language") or "python"
    cid = (DEFAULT_PREFIX + lang) if default else "ctx_" + str(uuid.uuid4())
    ctx = Context(cid, lang, req.get("cwd"), req.get("env"))
    contexts[cid] = ctx
    if default:
        defaults[lang] = cid
    try:
        await ctx.start()
    except BaseException:
        contexts.pop(cid, None)
        if default:
            defaults.pop(lang, None)
        raise
    return ctx


async def handle(send, req):
    op = req.get("op")
    rid = req.get("rid")
    try:
        if op == "run":
            await run(send, req)
        elif op == "create":
            ctx = await create(req)
            send({"rid": rid, "type": "reply", "context": ctx.view()})
        elif op == "list":
            views = [c.view() for c in contexts.values()]
            # the default contexts of these languages are listed also before their first run
            # (E2B's list has python and javascript from the start); a run starts them
            for lang in req.get("defaults") or []:
                if DEFAULT_PREFIX + lang not in contexts and lang in LANGUAGES:
                    views.insert(0, Context(DEFAULT_PREFIX + lang, lang, req.get("cwd"), {}).view() | {"status": "idle"})
            send({"rid": rid, "type": "reply", "contexts": views})
        elif op == "cancel":
            # the client of a run went away: its cell is interrupted, the context stays
            ctx = running.get(req.get("run"))
            if ctx is not None and ctx.kernel is not None:
                ctx.kernel.interrupt()
            send({"rid": rid, "type": "reply"})
        elif op in ("delete", "restart"):
            ctx = contexts.get(req.get("context_id"))
            if ctx is None:
                raise NotFound(req.get("context_id"))
            async with ctx.lock:
                await ctx.stop()
                if op == "delete":
                    contexts.pop(ctx.id, None)
                    if defaults.get(ctx.language) == ctx.id:
                        defaults.pop(ctx.language, None)
                else:
                    await ctx.start()
            send({"rid": rid, "type": "reply", "context": ctx.view()})
        elif op == "env":
            if req.get("env") != box_env["vars"]:
                box_env["vars"] = dict(req.get("env") or {})
                box_env["version"] += 1
            send({"rid": rid, "type": "reply", "missing": missing_languages()})
        elif op == "touch":
            # a warm-pool clone's warm-up (template-warmup.ts `clone`): the path of a first cell
            # run once, silently (no execution count, no history, no result, no client's run),
            # so QEMU has translated it before a box takes the clone; never starts a kernel
            ctx = contexts.get(defaults.get("python"))
            if ctx is not None and ctx.kernel is not None and ctx.status == "idle":
                async with ctx.lock:
                    await ctx.kernel.execute(TOUCH_CODE, {}, 60, Output(lambda e: None, 0, OUTPUT_CAP), silent=True)
            send({"rid": rid, "type": "reply"})
        elif op == "warm":
            # the template's warm-up: the default Python context started (WARM_CODE run)
            ctx = await context_for({"language": "python"})
            send({"rid": rid, "type": "reply", "context": ctx.view()})
        else:
            send({"rid": rid, "type": "fail", "code": "invalid", "message": "unknown op %r" % op})
    except NotFound as e:
        why = " (the code interpreter restarted, which reset every context)" if RESTARTED else ""
        send({"rid": rid, "type": "fail", "code": "not_found", "message": "No code context %s in this box%s." % (e, why)})
    except Exception as e:  # reported to the host, the daemon keeps serving
        send({"rid": rid, "type": "fail", "code": "failed", "message": "%s: %s" % (type(e).__name__, e)})


async def serve_client(reader, writer):
    # events are small writes: without TCP_NODELAY each waits for the peer's delayed ACK (~40 ms)
    sock = writer.get_extra_info("socket")
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    def send(event):
        try:
            writer.write((json.dumps(event) + "\n").encode())
        except Exception:
            pass

    tasks = set()
    while True:
        line = await reader.readline()
        if not line:
            break
        if line.startswith((b"GET ", b"HEAD ")):
            # E2B's code interpreter answers GET /health on this port (its health check)
            ok = line.split()[1:2] == [b"/health"]
            body = b'"OK"' if ok else b"Not Found"
            writer.write(b"HTTP/1.1 %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s" % (b"200 OK" if ok else b"404 Not Found", len(body), body if line.startswith(b"GET ") else b""))
            await writer.drain()
            break
        # the connector (bash /dev/tcp, cat) cannot set TCP_NODELAY: acknowledge at once, so its
        # next request is not held back waiting for our ACK
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 1)
        try:
            req = json.loads(line)
        except ValueError:
            continue
        t = asyncio.ensure_future(handle(send, req))
        tasks.add(t)
        t.add_done_callback(tasks.discard)
    writer.close()


async def main():
    # started in the background of a shell, SIGINT may come ignored: kernels inherit the
    # disposition, and their cells must stay interruptible
    signal.signal(signal.SIGINT, signal.default_int_handler)
    server = await asyncio.start_server(serve_client, "127.0.0.1", PORT, reuse_address=True)
    with open(MARKER, "w") as f:
        f.write("%d\n" % os.getpid())
    # the port actually bound (BOX_CODE_PORT=0: any free one, as the host tests use it)
    print("box-code listening on %d" % server.sockets[0].getsockname()[1], flush=True)
    # the daemon's heap as the template leaves it is shared by every clone: a full collection
    # in a clone would write to every object in it (a private copy of each page)
    gc.freeze()
    async with server:
        await server.serve_forever()


def warm():
    """`boxcode.py warm`: the template's warm-up, run once the daemon listens."""
    for _ in range(1200):
        try:
            s = socket.create_connection(("127.0.0.1", PORT))
            break
        except OSError:
            time.sleep(0.05)
    f = s.makefile("rwb")
    f.write(b'{"rid": 1, "op": "warm"}\n')
    f.flush()
    reply = json.loads(f.readline())
    print(json.dumps(reply))
    sys.exit(0 if reply.get("type") == "reply" and not reply.get("error") else 1)


if __name__ == "__main__":
    if sys.argv[1:] == ["warm"]:
        warm()
    else:
        asyncio.run(main())
