"""The synchronous client: GENERATED from _async.py by tools/unasync.py, do not edit."""

from __future__ import annotations

import time
import json
import socket
import uuid
from typing import Any, Iterable, Iterator, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import httpx

from ._base import (
    APP_ID,
    BOX_ID,
    CodeExecution,
    ExecDecoder,
    ExecOutcome,
    ExecResult,
    OutputEvent,
    Page,
    clean,
    code_run_body,
    query_text,
    retry_delay,
    seg,
)
from .types import (
    BoxInfo,
    Checkpoint,
    CodeContext,
    ContextDeleted,
    CronJob,
    CronRun,
    DeletedPath,
    EgressLogRow,
    ExecInfo,
    FileWriteResult,
    HttpPolicy,
    LineageEdge,
    Listener,
    PolicyDetached,
    PolicyPreset,
    VolumeEntry,
    VolumeFileWriteResult,
    VolumeInfo,
    Whoami,
)
from ._config import ServiceConfig, resolve_config
from ._errors import BoxConnectionError, BoxError, NotFoundError, error_from

Upload = Union[bytes, bytearray, str, Iterable[bytes], Any]
"""bytes, text (UTF-8), an iterable of bytes, or a binary file object."""

_REATTACH_TRIES = 3
_PIECE = 8 * 1024 * 1024


def _file_chunks(f: Any) -> Iterator[bytes]:
    while True:
        chunk = f.read(65536)
        if not chunk:
            return
        yield chunk


class NoDelayBackend:
    """httpcore's network backend with TCP_NODELAY on each connection. httpcore writes a
    request's headers and its body separately; with Nagle's algorithm on, a body sent on a
    reused connection waits for the server's delayed ACK (~40 ms a request here)."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def connect_tcp(self, *args: Any, **kwargs: Any) -> Any:
        stream = self._inner.connect_tcp(*args, **kwargs)
        sock = stream.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return stream

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def _transport() -> httpx.HTTPTransport:
    try:  # httpx >= 0.24.1 takes socket options
        return httpx.HTTPTransport(socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)])  # type: ignore[call-arg]
    except TypeError:  # Debian 12's httpx 0.23: wrap the pool's network backend
        t = httpx.HTTPTransport()
        pool = getattr(t, "_pool", None)
        if pool is not None and hasattr(pool, "_network_backend"):
            pool._network_backend = NoDelayBackend(pool._network_backend)
        return t


class Http:
    """The transport: base URL, key, typed errors and retries of 429/503 (Retry-After)."""

    def __init__(
        self,
        url: Optional[str],
        api_key: Optional[str],
        max_retries: int,
        max_retry_delay: float,
        timeout: Optional[float],
        env: Optional[Mapping[str, str]],
    ) -> None:
        self.config: ServiceConfig = resolve_config(url, api_key, env)
        self.max_retries = max_retries
        self.max_retry_delay = max_retry_delay
        self.client = httpx.Client(base_url=self.config.url, timeout=httpx.Timeout(timeout, connect=10.0), transport=_transport())

    def close(self) -> None:
        self.client.close()

    def send(
        self,
        method: str,
        path: str,
        *,
        query: Optional[Mapping[str, Any]] = None,
        json_body: Any = None,
        content: Any = None,
        headers: Optional[Mapping[str, str]] = None,
        idempotency_key: Optional[str] = None,
        stream: bool = False,
    ) -> httpx.Response:
        """Sends a request and answers the response once it is 2xx (streamed when asked);
        an error answer raises its typed BoxApiError."""
        if not self.config.api_key:
            raise BoxError(f"no API key: pass api_key, set BOX_API_KEY, or start the service so that it writes {self.config.key_source}")
        h = {"authorization": f"Bearer {self.config.api_key}", **(headers or {})}
        if idempotency_key:
            h["idempotency-key"] = idempotency_key
        body: Any = None
        replayable = True
        if json_body is not None:
            body = json.dumps(json_body, separators=(",", ":")).encode()  # once: retries send the same bytes
            h["content-type"] = "application/json"
        elif content is not None:
            h.setdefault("content-type", "application/octet-stream")
            if isinstance(content, str):
                body = content.encode()
            elif isinstance(content, (bytes, bytearray, memoryview)):
                body = bytes(content)
            else:
                replayable = False
                body = _file_chunks(content) if hasattr(content, "read") else content
        params = query_text(query or {})
        what = f"{method} {path}"
        attempt = 0
        while True:
            request = self.client.build_request(method, path, params=params, headers=h, content=body)
            try:
                res = self.client.send(request, stream=True)
            except httpx.TransportError as e:
                raise BoxConnectionError(
                    f"cannot reach the box service at {self.config.url}{path} ({e!r}); is it running? The URL came from {self.config.url_source}",
                    f"{self.config.url}{path}",
                ) from e
            if res.is_success:
                if not stream:
                    res.read()
                return res
            res.read()
            delay = retry_delay(res.status_code, res.headers, attempt, self.max_retries, self.max_retry_delay, replayable)
            if delay is None:
                raise error_from(res.status_code, res.reason_phrase, res.text, res.headers, what)
            attempt += 1
            time.sleep(delay)

    def json(self, method: str, path: str, **kw: Any) -> Any:
        res = self.send(method, path, **kw)
        if not res.content:
            return None
        try:
            return res.json()
        except ValueError:
            raise BoxError(f"the service answered {method} {path} with something that is not JSON: {res.text[:200]}") from None


def _ndjson(res: httpx.Response) -> Iterator[Dict[str, Any]]:
    try:
        for line in res.iter_lines():
            line = line.strip()
            if line:
                yield json.loads(line)
    finally:
        res.close()


class ExecStream:
    """A running command: iterate it for its output events as they happen, then ``wait()``.
    A stream broken by the network re-attaches to the same command (its idempotency key
    replays it; pieces already delivered are skipped), so the command runs once."""

    def __init__(self, http: Http, box_id: str, command: Union[str, Sequence[str]], opts: Dict[str, Any], stdin: Optional[Union[str, bytes]]) -> None:
        self._http = http
        self._box_id = box_id
        self._stdin = stdin
        self._body = clean(
            {
                "command": command if isinstance(command, str) else list(command),
                **opts,
                "open_stdin": True if stdin is not None else None,
                "idempotency_key": f"sdk-{uuid.uuid4()}",
            }
        )
        self._decoder = ExecDecoder()
        self._started = False
        self._iter: Optional[Iterator[OutputEvent]] = None

    @property
    def exec_id(self) -> str:
        return self._decoder.exec_id

    @property
    def outcome(self) -> Optional[ExecOutcome]:
        return self._decoder.outcome

    def __iter__(self) -> Iterator[OutputEvent]:
        if self._started:
            raise BoxError("an exec stream can be iterated once")
        self._started = True
        self._iter = self._run()
        return self._iter

    def wait(self) -> ExecOutcome:
        """How the command ended (reading and dropping output not iterated yet)."""
        if not self._started:
            for _ in self:
                pass
        if self._decoder.outcome is None:
            raise BoxError("the command has not ended: finish iterating its output first")
        return self._decoder.outcome

    def cancel(self, force: bool = False) -> None:
        """Stops the command (SIGTERM; force: SIGKILL)."""
        if not self.exec_id:
            raise BoxError("the command has not started yet")
        self._http.json("POST", f"/v1/boxes/{seg(self._box_id)}/exec/{seg(self.exec_id)}/cancel", json_body={"force": force})

    def _send_stdin(self, data: Union[str, bytes]) -> None:
        raw = data.encode() if isinstance(data, str) else bytes(data)
        path = f"/v1/boxes/{seg(self._box_id)}/exec/{seg(self.exec_id)}/stdin"
        at = 0
        while True:
            last = at + _PIECE >= len(raw)
            self._http.json("PUT", path, query={"offset": at, "eof": "true" if last else None}, content=raw[at : at + _PIECE])
            at += _PIECE
            if last:
                return

    def _run(self) -> Iterator[OutputEvent]:
        d = self._decoder
        path = f"/v1/boxes/{seg(self._box_id)}/exec"
        attempt = 0
        while True:
            try:
                res = self._http.send("POST", path, json_body=self._body, stream=True)
            except BoxConnectionError:
                if attempt < _REATTACH_TRIES and d.exec_id:
                    attempt += 1
                    time.sleep(0.3 * attempt)
                    continue
                raise
            try:
                for ev in _ndjson(res):
                    first = ev.get("type") == "started" and not d.exec_id
                    out = d.feed(ev)
                    if first and self._stdin is not None:
                        self._send_stdin(self._stdin)
                    if out is not None:
                        yield out
            except (httpx.TransportError, ValueError) as e:
                if d.outcome is not None:  # it had ended: nothing more to read
                    return
                if attempt >= _REATTACH_TRIES or not d.exec_id:
                    raise BoxError(f"the exec stream broke: {e!r}") from e
                attempt += 1
                continue
            if d.outcome is not None:  # read to the end of the body: the connection is reused
                return
            if attempt >= _REATTACH_TRIES or not d.exec_id:
                raise BoxError("the exec stream ended without an exit event")
            attempt += 1


class BoxFiles:
    """Files inside a running box: bytes, text and streams both ways."""

    def __init__(self, http: Http, box_id: str) -> None:
        self._http = http
        self._base = f"/v1/boxes/{seg(box_id)}"

    def write(self, path: str, data: Upload, *, mode: Optional[Union[str, int]] = None, create_parents: Optional[bool] = None) -> FileWriteResult:
        """Writes a file from bytes, text, an iterable of bytes or a binary file object."""
        m = format(mode, "04o") if isinstance(mode, int) else mode
        return self._http.json("PUT", f"{self._base}/files", query={"path": path, "mode": m, "create_parents": create_parents}, content=data)

    def read(self, path: str) -> bytes:
        return (self._http.send("GET", f"{self._base}/files", query={"path": path})).content

    def read_text(self, path: str, encoding: str = "utf-8") -> str:
        return (self.read(path)).decode(encoding)

    def read_stream(self, path: str, chunk_size: int = 65536) -> Iterator[bytes]:
        """The file's bytes in pieces, as it downloads."""
        res = self._http.send("GET", f"{self._base}/files", query={"path": path}, stream=True)
        try:
            for chunk in res.iter_bytes(chunk_size):
                yield chunk
        finally:
            res.close()

    def list(self, path: str = "/") -> List[VolumeEntry]:
        return (self._http.json("GET", f"{self._base}/directories", query={"path": path}))["entries"]

    def mkdir(self, path: str) -> VolumeEntry:
        """Creates a folder (and missing parents); ConflictError when something is already there."""
        return self._http.json("POST", f"{self._base}/directories", json_body={"path": path})

    def move(self, src: str, dst: str) -> VolumeEntry:
        """Renames or moves a path inside the box; ConflictError when dst exists."""
        return self._http.json("POST", f"{self._base}/paths/move", json_body={"from": src, "to": dst})

    def remove(self, path: str, *, recursive: bool = False) -> Dict[str, Any]:
        """Deletes a file, a link or an empty folder; recursive=True a folder with its contents."""
        return self._http.json("DELETE", f"{self._base}/paths", query={"path": path, "recursive": recursive or None})


class BoxCron:
    """Cron jobs of one box."""

    def __init__(self, http: Http, box_id: str) -> None:
        self._http = http
        self._base = f"/v1/boxes/{seg(box_id)}/cron"

    def create(
        self,
        schedule: str,
        command: str,
        *,
        timezone: Optional[str] = None,
        cwd: Optional[str] = None,
        user: Optional[str] = None,
        env: Optional[Mapping[str, str]] = None,
        timeout: Optional[int] = None,
    ) -> CronJob:
        body = clean({"schedule": schedule, "command": command, "timezone": timezone, "cwd": cwd, "user": user, "env": env, "timeout": timeout})
        return self._http.json("POST", self._base, json_body=body, idempotency_key=str(uuid.uuid4()))

    def list(self) -> List[CronJob]:
        return (self._http.json("GET", self._base, query={"limit": 100}))["data"]

    def get(self, cron_id: str) -> CronJob:
        return self._http.json("GET", f"{self._base}/{seg(cron_id)}")

    def delete(self, cron_id: str) -> CronJob:
        return self._http.json("DELETE", f"{self._base}/{seg(cron_id)}")

    def run(self, cron_id: str) -> CronRun:
        """Runs the job now."""
        return self._http.json("POST", f"{self._base}/{seg(cron_id)}/run")

    def runs(self, cron_id: str) -> List[CronRun]:
        return (self._http.json("GET", f"{self._base}/{seg(cron_id)}/runs"))["data"]


class BoxCode:
    """The box's code interpreter: runs and contexts."""

    def __init__(self, http: Http, box_id: str) -> None:
        self._http = http
        self._base = f"/v1/boxes/{seg(box_id)}/code"

    def run(
        self, code: str, *, language: Optional[str] = None, context: Any = None, env: Optional[Mapping[str, str]] = None, timeout: Optional[float] = None
    ) -> CodeExecution:
        body = code_run_body(code, language, context, env, timeout)
        return CodeExecution.from_wire(self._http.json("POST", f"{self._base}/run", json_body=body))

    def run_stream(
        self, code: str, *, language: Optional[str] = None, context: Any = None, env: Optional[Mapping[str, str]] = None, timeout: Optional[float] = None
    ) -> Iterator[Dict[str, Any]]:
        """Yields stdout, stderr, result and error events as they happen; the last is ``end``
        (its ``execution`` a CodeExecution)."""
        body = code_run_body(code, language, context, env, timeout)
        res = self._http.send("POST", f"{self._base}/run", query={"stream": 1}, json_body=body, headers={"accept": "application/x-ndjson"}, stream=True)
        for ev in _ndjson(res):
            if ev.get("type") == "end":
                ev = {**ev, "execution": CodeExecution.from_wire(ev["execution"])}
            yield ev

    def create_context(self, *, language: Optional[str] = None, cwd: Optional[str] = None, env: Optional[Mapping[str, str]] = None) -> CodeContext:
        return self._http.json("POST", f"{self._base}/contexts", json_body=clean({"language": language, "cwd": cwd, "env": env}))

    def list_contexts(self) -> List[CodeContext]:
        return (self._http.json("GET", f"{self._base}/contexts"))["data"]

    def delete_context(self, context: Any) -> ContextDeleted:
        cid = context if isinstance(context, str) else context["id"]
        return self._http.json("DELETE", f"{self._base}/contexts/{seg(cid)}")

    def restart_context(self, context: Any) -> CodeContext:
        cid = context if isinstance(context, str) else context["id"]
        return self._http.json("POST", f"{self._base}/contexts/{seg(cid)}/restart")


class Box:
    """One box: ``info`` is its API description as of the last call that answered it."""

    def __init__(self, http: Http, info: BoxInfo) -> None:
        self._http = http
        self.info = info
        self.files = BoxFiles(http, info["box_id"])
        self.cron = BoxCron(http, info["box_id"])
        self.code = BoxCode(http, info["box_id"])

    def __repr__(self) -> str:
        return f"Box(id={self.id!r}, name={self.name!r}, status={self.status!r})"

    @property
    def id(self) -> str:
        return self.info["box_id"]

    @property
    def name(self) -> str:
        return self.info["name"]

    @property
    def status(self) -> str:
        return self.info["status"]

    @property
    def _p(self) -> str:
        return f"/v1/boxes/{seg(self.id)}"

    def _set(self, method: str, suffix: str, body: Any = None) -> "Box":
        self.info = self._http.json(method, f"{self._p}{suffix}", json_body=body)
        return self

    def refresh(self) -> "Box":
        return self._set("GET", "")

    # commands

    def exec(
        self,
        command: Union[str, Sequence[str]],
        *,
        cwd: Optional[str] = None,
        env: Optional[Mapping[str, str]] = None,
        user: Optional[str] = None,
        timeout: Optional[int] = None,
        stdin: Optional[Union[str, bytes]] = None,
    ) -> ExecResult:
        """Runs a command to its end. A string runs under /bin/sh -c; a list runs as argv."""
        s = self.exec_stream(command, cwd=cwd, env=env, user=user, timeout=timeout, stdin=stdin)
        out: Dict[str, List[bytes]] = {"stdout": [], "stderr": []}
        for ev in s:
            out[ev.stream].append(ev.bytes)
        o = s.wait()
        return ExecResult(
            o.exec_id, o.status, o.exit_code, o.errors, b"".join(out["stdout"]).decode("utf-8", "replace"), b"".join(out["stderr"]).decode("utf-8", "replace")
        )

    def exec_stream(
        self,
        command: Union[str, Sequence[str]],
        *,
        cwd: Optional[str] = None,
        env: Optional[Mapping[str, str]] = None,
        user: Optional[str] = None,
        timeout: Optional[int] = None,
        stdin: Optional[Union[str, bytes]] = None,
    ) -> ExecStream:
        """Runs a command and streams its output events (``ev.stream``, ``ev.data``)."""
        return ExecStream(self._http, self.id, command, {"cwd": cwd, "env": env, "user": user, "timeout": timeout}, stdin)

    def execs(self) -> List[ExecInfo]:
        return (self._http.json("GET", f"{self._p}/exec"))["data"]

    # the code interpreter

    def run_code(
        self, code: str, *, language: Optional[str] = None, context: Any = None, env: Optional[Mapping[str, str]] = None, timeout: Optional[float] = None
    ) -> CodeExecution:
        """Runs code in the box's code interpreter (Python unless language or context says otherwise)."""
        return self.code.run(code, language=language, context=context, env=env, timeout=timeout)

    def run_code_stream(
        self, code: str, *, language: Optional[str] = None, context: Any = None, env: Optional[Mapping[str, str]] = None, timeout: Optional[float] = None
    ) -> Iterator[Dict[str, Any]]:
        return self.code.run_stream(code, language=language, context=context, env=env, timeout=timeout)

    # lifecycle

    def pause(self) -> "Box":
        return self._set("POST", "/pause")

    def resume(self) -> "Box":
        self.info = (self._http.json("POST", f"{self._p}/resume"))["box"]
        return self

    def sleep(self, *, wake_at: Optional[str] = None) -> "Box":
        """Saves the box to disk and stops its VM; wake_at (ISO 8601) wakes it then."""
        return self._set("POST", "/sleep", clean({"wake_at": wake_at}))

    def wake_at(self, at: Optional[str]) -> "Box":
        return self._set("POST", "/wake_at", {"wake_at": at})

    def set_auto_sleep(self, automatic: bool, min_seconds_before_sleep: Optional[int] = None) -> "Box":
        return self._set("POST", "/auto_sleep", clean({"automatic": automatic, "min_seconds_before_sleep": min_seconds_before_sleep}))

    def reboot(self) -> "Box":
        return self._set("POST", "/reboot")

    def upgrade(self) -> "Box":
        return self._set("POST", "/upgrade")

    def terminate(self) -> "Box":
        return self._set("POST", "/terminate")

    # checkpoints and forks

    def checkpoint(self, *, name: Optional[str] = None, ttl_seconds: Optional[int] = None) -> Checkpoint:
        body = clean({"name": name, "ttl_seconds": ttl_seconds})
        return self._http.json("POST", f"{self._p}/checkpoint", json_body=body, idempotency_key=str(uuid.uuid4()))

    def fork(self, *, name: str, idempotency_key: Optional[str] = None) -> "Box":
        """A new running box from this one's current state."""
        return (self.fork_many(name=name, count=1, idempotency_key=idempotency_key))[1][0]

    def fork_many(self, *, name: str, count: int, idempotency_key: Optional[str] = None) -> Tuple[str, List["Box"]]:
        """count new boxes from one checkpoint of this one: (checkpoint_id, boxes)."""
        r = self._http.json("POST", f"{self._p}/fork", json_body={"name": name, "count": count}, idempotency_key=idempotency_key or str(uuid.uuid4()))
        return r["checkpoint_id"], [Box(self._http, b) for b in r["boxes"]]

    def checkpoints(self) -> List[Checkpoint]:
        return (self._http.json("GET", "/v1/box-checkpoints", query={"box_id": self.id}))["data"]

    def restore_to(self, checkpoint_id: str) -> "Box":
        """Takes this box back to one of its own checkpoints, disk and memory (beyond the spec); what it holds now is lost."""
        return self._set("POST", "/restore", {"checkpoint_id": checkpoint_id})

    # network and policy

    def policy(self) -> HttpPolicy:
        return self._http.json("GET", f"{self._p}/http-policy")

    def set_policy(self, policy_id: str) -> HttpPolicy:
        return self._http.json("PUT", f"{self._p}/http-policy", json_body={"policy_id": policy_id})

    def detach_policy(self) -> PolicyDetached:
        return self._http.json("DELETE", f"{self._p}/http-policy")

    def publish(self, guest_port: int, *, protocol: Optional[str] = None) -> Listener:
        return self._http.json("POST", f"{self._p}/listeners", json_body=clean({"guest_port": guest_port, "protocol": protocol}))

    def listeners(self) -> List[Listener]:
        return (self._http.json("GET", f"{self._p}/listeners"))["data"]

    def unpublish(self, guest_port: int) -> Listener:
        return self._http.json("DELETE", f"{self._p}/listeners/{guest_port}")

    def egress_log(self, *, limit: Optional[int] = None, offset: Optional[int] = None) -> List[EgressLogRow]:
        return (self._http.json("GET", f"{self._p}/egress-log", query={"limit": limit, "offset": offset}))["data"]


def _app_id(http: Http, ref: str, create: bool = True) -> str:
    if APP_ID.match(ref):
        return ref
    return (http.json("POST", "/v1/apps/find", json_body={"name": ref, "mint_if_missing": create}))["id"]


class Boxes:
    def __init__(self, http: Http) -> None:
        self._http = http

    def create(
        self,
        *,
        name: str,
        app: Optional[str] = None,
        image: Optional[str] = None,
        size: Optional[str] = None,
        idempotency_key: Optional[str] = None,
        **fields: Any,
    ) -> Box:
        """Creates a box and answers once it runs. Other API fields (memory_mib, disk_gib,
        ingress_ports, volume_mounts, http_policy_id, auto_sleep, ...) pass as keywords.
        The Idempotency-Key (a fresh one unless given) makes retries answer the same box."""
        app_id = _app_id(self._http, app or "default")
        body = clean({"app_id": app_id, "name": name, "image": image, "size": size, **fields})
        info = self._http.json("POST", "/v1/boxes", json_body=body, idempotency_key=idempotency_key or str(uuid.uuid4()))
        return Box(self._http, info)

    def get(self, ref: str) -> Box:
        """A box by id, or by name among the live boxes."""
        if BOX_ID.match(ref):
            return Box(self._http, self._http.json("GET", f"/v1/boxes/{seg(ref)}"))
        found: List[Box] = []
        for b in self.iterate(search=ref):
            if b.name == ref and b.status != "terminated":
                found.append(b)
        if len(found) == 1:
            return found[0]
        if found:
            raise BoxError(f"{len(found)} boxes are named {ref!r}: {', '.join(b.id for b in found)}; use the id")
        raise NotFoundError(404, {"message": f"No box named {ref!r}.", "type": "not_found_error", "param": "name", "code": None}, {}, "GET /v1/boxes")

    def list(
        self, *, app: Optional[str] = None, status: Optional[str] = None, search: Optional[str] = None, limit: Optional[int] = None, offset: Optional[int] = None
    ) -> Page[Box]:
        app_id = _app_id(self._http, app, False) if app else None
        q = {"app_id": app_id, "status": status, "search": search, "limit": limit, "offset": offset}
        p = self._http.json("GET", "/v1/boxes", query=q)
        return Page([Box(self._http, b) for b in p["data"]], p["limit"], p["offset"], p["total"], p["has_more"])

    def iterate(self, *, app: Optional[str] = None, status: Optional[str] = None, search: Optional[str] = None) -> Iterator[Box]:
        offset = 0
        while True:
            page = self.list(app=app, status=status, search=search, limit=100, offset=offset)
            for b in page.data:
                yield b
            if not page.has_more:
                return
            offset += 100


class Checkpoints:
    def __init__(self, http: Http) -> None:
        self._http = http

    def list(self, *, box_id: Optional[str] = None, name: Optional[str] = None) -> List[Checkpoint]:
        return (self._http.json("GET", "/v1/box-checkpoints", query={"box_id": box_id, "name": name}))["data"]

    def get(self, checkpoint_id: str) -> Checkpoint:
        return self._http.json("GET", f"/v1/box-checkpoints/{seg(checkpoint_id)}")

    def delete(self, checkpoint_id: str) -> Checkpoint:
        return self._http.json("DELETE", f"/v1/box-checkpoints/{seg(checkpoint_id)}")

    def restore(self, checkpoint_id: str, *, name: str, idempotency_key: Optional[str] = None) -> Box:
        """A new box from a checkpoint."""
        body = {"checkpoint_id": checkpoint_id, "name": name}
        info = self._http.json("POST", "/v1/boxes/from_checkpoint", json_body=body, idempotency_key=idempotency_key or str(uuid.uuid4()))
        return Box(self._http, info)


class Volume:
    """A volume and its files."""

    def __init__(self, http: Http, info: VolumeInfo) -> None:
        self._http = http
        self.info = info

    @property
    def id(self) -> str:
        return self.info["volume_id"]

    @property
    def name(self) -> str:
        return self.info["name"]

    @property
    def _p(self) -> str:
        return f"/v1/box-volumes/{seg(self.id)}"

    def write(self, path: str, data: Upload, *, mode: Optional[str] = None, create_parents: Optional[bool] = None) -> VolumeFileWriteResult:
        return self._http.json("PUT", f"{self._p}/files", query={"path": path, "mode": mode, "create_parents": create_parents}, content=data)

    def read(self, path: str) -> bytes:
        return (self._http.send("GET", f"{self._p}/files", query={"path": path})).content

    def read_text(self, path: str, encoding: str = "utf-8") -> str:
        return (self.read(path)).decode(encoding)

    def list(self, path: Optional[str] = None) -> List[VolumeEntry]:
        return (self._http.json("GET", f"{self._p}/directories", query={"path": path}))["entries"]

    def stat(self, path: str) -> VolumeEntry:
        return self._http.json("GET", f"{self._p}/paths", query={"path": path})

    def mkdir(self, path: str) -> VolumeEntry:
        return self._http.json("POST", f"{self._p}/directories", json_body={"path": path})

    def move(self, src: str, dst: str) -> VolumeEntry:
        return self._http.json("POST", f"{self._p}/paths/move", json_body={"from": src, "to": dst})

    def remove(self, path: str, *, recursive: bool = False) -> DeletedPath:
        return self._http.json("DELETE", f"{self._p}/paths", query={"path": path, "recursive": recursive or None})

    def delete(self) -> VolumeInfo:
        self.info = self._http.json("DELETE", self._p)
        return self.info


class Inboxes:
    """Webhook inboxes: local receivers for completion webhooks (what the playground shows)."""

    def __init__(self, http: Http) -> None:
        self._http = http

    def mine(self) -> Dict[str, Any]:
        """Your own inbox (of this key's user): the same one every time, made the first time."""
        return self._http.json("POST", "/v1/inbox/mine")

    def create(self, *, respond_status: Optional[int] = None) -> Dict[str, Any]:
        return self._http.json("POST", "/v1/inbox", json_body=clean({"respond_status": respond_status}))

    def list(self) -> List[Dict[str, Any]]:
        return (self._http.json("GET", "/v1/inboxes"))["data"]

    def deliveries(self, *, inbox_id: Optional[str] = None, limit: Optional[int] = None, offset: Optional[int] = None) -> List[Dict[str, Any]]:
        """Deliveries, newest first (of one inbox, or all of the organization's)."""
        return (self._http.json("GET", "/v1/inbox", query={"inbox_id": inbox_id, "limit": limit, "offset": offset}))["data"]


class Volumes:
    def __init__(self, http: Http) -> None:
        self._http = http

    def create(self, *, name: str, idempotency_key: Optional[str] = None) -> Volume:
        info = self._http.json("POST", "/v1/box-volumes", json_body={"name": name}, idempotency_key=idempotency_key or str(uuid.uuid4()))
        return Volume(self._http, info)

    def get(self, volume_id: str) -> Volume:
        return Volume(self._http, self._http.json("GET", f"/v1/box-volumes/{seg(volume_id)}"))

    def list(self, *, limit: Optional[int] = None, offset: Optional[int] = None) -> Page[Volume]:
        p = self._http.json("GET", "/v1/box-volumes", query={"limit": limit, "offset": offset})
        return Page([Volume(self._http, v) for v in p["data"]], p["limit"], p["offset"], p["total"], p["has_more"])


class Policies:
    """HTTP (egress) policies: what boxes may reach, and secrets injected on the way out."""

    def __init__(self, http: Http) -> None:
        self._http = http

    def presets(self) -> List[PolicyPreset]:
        return (self._http.json("GET", "/v1/http-policies/presets"))["data"]

    def create(self, *, name: Optional[str] = None, document: Optional[Mapping[str, Any]] = None, preset: Optional[str] = None) -> HttpPolicy:
        body = clean({"name": name, "document": document, "preset": preset})
        return self._http.json("POST", "/v1/http-policies", json_body=body, idempotency_key=str(uuid.uuid4()))

    def list(self, *, limit: Optional[int] = None, offset: Optional[int] = None) -> Page[HttpPolicy]:
        p = self._http.json("GET", "/v1/http-policies", query={"limit": limit, "offset": offset})
        return Page(p["data"], p["limit"], p["offset"], p["total"], p["has_more"])

    def get(self, policy_id: str) -> HttpPolicy:
        return self._http.json("GET", f"/v1/http-policies/{seg(policy_id)}")

    def update(self, policy_id: str, *, name: Optional[str] = None, document: Optional[Mapping[str, Any]] = None) -> HttpPolicy:
        return self._http.json("PATCH", f"/v1/http-policies/{seg(policy_id)}", json_body=clean({"name": name, "document": document}))

    def delete(self, policy_id: str) -> HttpPolicy:
        return self._http.json("DELETE", f"/v1/http-policies/{seg(policy_id)}")


class Client:
    """The Box Desktop client. ``Client()`` finds the local service like the ``box`` CLI
    (BOX_URL, BOX_API_KEY, the running service's endpoint and key files);
    ``Client(url=..., api_key=...)`` names them."""

    def __init__(
        self,
        url: Optional[str] = None,
        api_key: Optional[str] = None,
        *,
        max_retries: int = 3,
        max_retry_delay: float = 60.0,
        timeout: Optional[float] = None,
        env: Optional[Mapping[str, str]] = None,
    ) -> None:
        self._http = Http(url, api_key, max_retries, max_retry_delay, timeout, env)
        self.boxes = Boxes(self._http)
        self.checkpoints = Checkpoints(self._http)
        self.volumes = Volumes(self._http)
        self.policies = Policies(self._http)
        self.inboxes = Inboxes(self._http)

    @property
    def url(self) -> str:
        return self._http.config.url

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def whoami(self) -> Whoami:
        return self._http.json("GET", "/v1/whoami")

    def cron_jobs(self) -> List[CronJob]:
        """Every cron job of the organization's boxes."""
        return (self._http.json("GET", "/v1/cron"))["data"]

    def lineage(self) -> List[LineageEdge]:
        return (self._http.json("GET", "/v1/box-lineage"))["data"]
