"""Python kernel of the box code daemon (kernels.py): one process per context.

ipykernel's in-process kernel (InProcessKernel: IPython's shell with ipykernel's display
formatters, displayhook and Jupyter messages), driven from this process's main thread:
no ZMQ sockets, no second kernel process, no I/O thread. A cell arrives as a JSON line on
the fd named by BOX_CODE_IN ({code, env} or {setenv}; stdin is the cell's, /dev/null); it
runs as a Jupyter execute_request; what it prints goes to this process's stdout and
stderr (so output from C code and child processes is caught too); its results, error and
end are reported as JSON lines on the fd named by BOX_CODE_FD, in the order the kernel
published them. SIGINT interrupts a running cell (KeyboardInterrupt).
"""

import asyncio
import json
import os
import sys

FD = int(os.environ.pop("BOX_CODE_FD"))
REQUESTS = int(os.environ.pop("BOX_CODE_IN"))
# plots become PNG display data (plt.show() and a figure left as a cell's value)
os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
# ipykernel imports debugpy when it can, for a debugger we do not offer: a heavy import
sys.modules["debugpy"] = None

from IPython.core import formatters, pylabtools  # noqa: E402
from ipykernel.inprocess.ipkernel import InProcessKernel  # noqa: E402
from ipykernel.iostream import IOPubThread  # noqa: E402
from traitlets import default  # noqa: E402

import charts  # noqa: E402


def _plain_format_call(method):
    """IPython's formatters' __call__ without the `decorator` package's wrapper, which binds
    every call's arguments to the signature (inspect.Signature.bind: a third of a `1+1`
    cell's time under TCG, ten formatters a result). Same handling as catch_format_error."""

    def call(self, *args, **kwargs):
        try:
            r = method(self, *args, **kwargs)
        except NotImplementedError:
            return self._check_return(None, args[0])
        except Exception:
            formatters.get_ipython().showtraceback(sys.exc_info())
            return self._check_return(None, args[0])
        return self._check_return(r, args[0])

    return call


for _cls in vars(formatters).values():
    _call = isinstance(_cls, type) and _cls.__dict__.get("__call__")
    if _call and hasattr(_call, "__wrapped__") and _call.__name__ == "__call__":
        _cls.__call__ = _plain_format_call(_call.__wrapped__)


# a chart's PNG is deflated at zlib level 1, not 6: the same pixels, size and format, some 15%
# more bytes, and under TCG half the encoder's time (~250 of a chart's ~2600 ms in the box).
# Only the inline backend's PNGs (its formatter calls this function): a caller's own
# pil_kwargs, plt.savefig and other formats are left alone
PNG_COMPRESS_LEVEL = 1
_print_figure = pylabtools.print_figure


def _print_figure_fast_png(fig, fmt="png", *args, **kwargs):
    if fmt == "png" and "pil_kwargs" not in kwargs:
        kwargs["pil_kwargs"] = {"compress_level": PNG_COMPRESS_LEVEL}
    return _print_figure(fig, fmt, *args, **kwargs)


pylabtools.print_figure = _print_figure_fast_png


def show_open_figures(result=None):
    """Figures a cell left open (plt.savefig without show, a plot never shown) are shown at
    its end and closed, as the inline backend does in an interactive Jupyter session."""
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is None or not pyplot.get_fignums() or "inline" not in pyplot.get_backend():
        return
    from IPython.display import display

    try:
        for num in pyplot.get_fignums():
            display(pyplot.figure(num))
    finally:
        pyplot.close("all")


class ImageSaveShows:
    """When PIL.Image is imported, Image.save to a file name also displays the image (E2B's
    kernels do: a saved image comes back as the cell's PNG)."""

    def find_spec(self, name, path=None, target=None):
        if name != "PIL.Image":
            return None
        import importlib.util

        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        load = spec.loader.exec_module

        def exec_module(module):
            load(module)
            save = module.Image.save

            def save_and_show(image, fp, format=None, **params):
                # not when matplotlib saves a figure through PIL (plt.savefig): the figure shows itself
                if isinstance(fp, (str, os.PathLike)) and not sys._getframe(1).f_globals.get("__name__", "").startswith("matplotlib"):
                    from IPython.display import display

                    display(image)
                return save(image, fp, format, **params)

            module.Image.save = save_and_show

        spec.loader.exec_module = exec_module
        return spec


# a cell's main result waits for its end and goes out with it, in one write: each write wakes
# the daemon, and under TCG each switch to it and back costs more than the event itself
held = []


def report(event, hold=False):
    held.append(json.dumps(event) + "\n")
    if hold:
        return
    data = "".join(held).encode()
    held.clear()
    while data:
        data = data[os.write(FD, data):]


DELIM = b"<IDS|MSG>"


def read_msg(socket):
    """A message's type and content from an in-process socket: frames as Session.send made
    them, read without Session.recv's per-message signature check and date parsing (the
    sender is this process)."""
    frames = [bytes(f) for f in socket.recv_multipart()]
    i = frames.index(DELIM)  # then: signature, header, parent header, metadata, content
    return json.loads(frames[i + 2])["msg_type"], json.loads(frames[i + 5])


class BoxKernel(InProcessKernel):
    """The in-process kernel, its messages handed over at once in the cell's own thread."""

    @default("iopub_thread")
    def _default_iopub_thread(self):
        # never started: IOPubThread sends at once, in the caller's thread, when its thread
        # does not run (no hop to an I/O thread and back per message)
        return IOPubThread(self._underlying_iopub_socket)

    @default("stdout")
    def _default_stdout(self):
        return sys.__stdout__

    @default("stderr")
    def _default_stderr(self):
        return sys.__stderr__

    def _io_dispatch(self, change):
        t, c = read_msg(self.iopub_socket.io_thread.socket)
        if t in ("execute_result", "display_data"):
            sys.__stdout__.flush()
            sys.__stderr__.flush()
            # the main result is the cell's last value: held for the end unless more follows
            report({"type": "result", "result": c.get("data", {}), "main": t == "execute_result"}, hold=t == "execute_result")
        elif t == "error":
            sys.__stderr__.flush()
            report({"type": "error", "error": {"name": c.get("ename", "Error"), "value": c.get("evalue", ""), "traceback": "\n".join(c.get("traceback", []))}})
        elif t == "stream":  # a stream message (nothing of ours sends them; kept for completeness)
            (sys.__stdout__ if c.get("name") == "stdout" else sys.__stderr__).write(c.get("text", ""))


def main():
    # a line goes out as it is printed, in one piece (a partial line at the cell's end or flush)
    for f in (sys.__stdout__, sys.__stderr__):
        f.reconfigure(line_buffering=True, write_through=False)
    kernel = BoxKernel()
    # messages never leave this process (read_msg skips the signature): no HMAC per message
    kernel.session.key = b""
    kernel.shell.history_manager.enabled = False
    charts.register(kernel.shell)  # a matplotlib figure's data beside its PNG, a DataFrame's
    kernel.shell.events.register("post_run_cell", show_open_figures)
    sys.meta_path.insert(0, ImageSaveShows())
    kernel._execute_sleep = 0  # a pause after each cell "for iopub to flush": ours is synchronous
    kernel._publish_execute_input = lambda *args: None  # the cell's code echoed to IOPub: nobody reads it here
    session = kernel.session
    stream = kernel.shell_stream
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    count = 0
    requests = os.fdopen(REQUESTS, "rb")
    while True:
        try:
            line = requests.readline()
        except KeyboardInterrupt:  # an interrupt between cells changes nothing
            continue
        if not line:
            return
        req = json.loads(line)
        if "setenv" in req:
            os.environ.update(req["setenv"])
            continue
        if "chdir" in req:
            os.chdir(req["chdir"])
            continue
        env = req.get("env") or {}
        saved = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        try:
            # a Jupyter execute_request, handed to ipykernel's handler as the message itself
            # (dispatch_shell would serialize, sign and parse it again, and publish two status
            # messages nobody here reads)
            content = {"code": req["code"], "silent": bool(req.get("silent")), "store_history": not req.get("silent"), "user_expressions": {}, "allow_stdin": False, "stop_on_error": True}
            parent = session.msg("execute_request", content)
            kernel.set_parent([], parent, "shell")
            loop.run_until_complete(kernel.execute_request(stream, [], parent))
            count = read_msg(stream)[1].get("execution_count", count)
        except KeyboardInterrupt:  # landed outside the cell's own code
            report({"type": "error", "error": {"name": "KeyboardInterrupt", "value": "", "traceback": "KeyboardInterrupt"}})
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        sys.__stdout__.flush()
        sys.__stderr__.flush()
        report({"type": "end", "execution_count": count})


if __name__ == "__main__":
    main()
