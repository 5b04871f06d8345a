# GENERATED from _async/box.py by tools/unasync.py: do not edit.
"""One box: commands, lifecycle, checkpoints and forks, network and policy; its files, cron
and code interpreter hang off it."""

from __future__ import annotations

import uuid
from typing import Any, Iterator, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from .._base import CodeExecution, Described, ExecResult, clean
from ..types import BoxInfo, Checkpoint, EgressLogRow, ExecInfo, HttpPolicy, Listener, PolicyDetached
from .code import BoxCode
from .cron import BoxCron
from .desktop import BoxDesktop
from .exec import ExecStream
from .files import BoxFiles
from .transport import Http


class Box(Described):
    """One box: ``info`` is its API description as of the last call that answered it."""

    _id_field = "box_id"
    _collection = "/v1/boxes"

    def __init__(self, http: Http, info: BoxInfo) -> None:
        self._http = http
        self.info: BoxInfo = info
        self.files = BoxFiles(http, info["box_id"])
        self.cron = BoxCron(http, info["box_id"])
        self.code = BoxCode(http, info["box_id"])
        self.desktop = BoxDesktop(http, info["box_id"])

    def __repr__(self) -> str:
        return f"Box(id={self.id!r}, name={self.name!r}, status={self.status!r})"

    @property
    def status(self) -> str:
        return self.info["status"]

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
