"""One box: commands, lifecycle, checkpoints and forks, network and policy; its files, cron
and code interpreter hang off it."""

from __future__ import annotations

import uuid
from typing import Any, AsyncIterator, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from .._base import CodeExecution, Described, ExecResult, clean
from ..types import BoxInfo, Checkpoint, EgressLogRow, ExecInfo, HttpPolicy, Listener, PolicyDetached
from .code import AsyncBoxCode
from .cron import AsyncBoxCron
from .desktop import AsyncBoxDesktop
from .exec import AsyncExecStream
from .files import AsyncBoxFiles
from .transport import AsyncHttp


class AsyncBox(Described):
    """One box: ``info`` is its API description as of the last call that answered it."""

    _id_field = "box_id"
    _collection = "/v1/boxes"

    def __init__(self, http: AsyncHttp, info: BoxInfo) -> None:
        self._http = http
        self.info: BoxInfo = info
        self.files = AsyncBoxFiles(http, info["box_id"])
        self.cron = AsyncBoxCron(http, info["box_id"])
        self.code = AsyncBoxCode(http, info["box_id"])
        self.desktop = AsyncBoxDesktop(http, info["box_id"])

    def __repr__(self) -> str:
        return f"Box(id={self.id!r}, name={self.name!r}, status={self.status!r})"

    @property
    def status(self) -> str:
        return self.info["status"]

    async def _set(self, method: str, suffix: str, body: Any = None) -> "AsyncBox":
        self.info = await self._http.json(method, f"{self._p}{suffix}", json_body=body)
        return self

    async def refresh(self) -> "AsyncBox":
        return await self._set("GET", "")

    # commands

    async def exec(
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
        async for ev in s:
            out[ev.stream].append(ev.bytes)
        o = await s.wait()
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
    ) -> AsyncExecStream:
        """Runs a command and streams its output events (``ev.stream``, ``ev.data``)."""
        return AsyncExecStream(self._http, self.id, command, {"cwd": cwd, "env": env, "user": user, "timeout": timeout}, stdin)

    async def execs(self) -> List[ExecInfo]:
        return (await self._http.json("GET", f"{self._p}/exec"))["data"]

    # the code interpreter

    async def run_code(
        self, code: str, *, language: Optional[str] = None, context: Any = None, env: Optional[Mapping[str, str]] = None, timeout: Optional[float] = None
    ) -> CodeExecution:
        """Runs code in the box's code interpreter (Python unless language or context says otherwise)."""
        return await self.code.run(code, language=language, context=context, env=env, timeout=timeout)

    def run_code_stream(
        self, code: str, *, language: Optional[str] = None, context: Any = None, env: Optional[Mapping[str, str]] = None, timeout: Optional[float] = None
    ) -> AsyncIterator[Dict[str, Any]]:
        return self.code.run_stream(code, language=language, context=context, env=env, timeout=timeout)

    # lifecycle

    async def pause(self) -> "AsyncBox":
        return await self._set("POST", "/pause")

    async def resume(self) -> "AsyncBox":
        self.info = (await self._http.json("POST", f"{self._p}/resume"))["box"]
        return self

    async def sleep(self, *, wake_at: Optional[str] = None) -> "AsyncBox":
        """Saves the box to disk and stops its VM; wake_at (ISO 8601) wakes it then."""
        return await self._set("POST", "/sleep", clean({"wake_at": wake_at}))

    async def wake_at(self, at: Optional[str]) -> "AsyncBox":
        return await self._set("POST", "/wake_at", {"wake_at": at})

    async def set_auto_sleep(self, automatic: bool, min_seconds_before_sleep: Optional[int] = None) -> "AsyncBox":
        return await self._set("POST", "/auto_sleep", clean({"automatic": automatic, "min_seconds_before_sleep": min_seconds_before_sleep}))

    async def reboot(self) -> "AsyncBox":
        return await self._set("POST", "/reboot")

    async def upgrade(self) -> "AsyncBox":
        return await self._set("POST", "/upgrade")

    async def terminate(self) -> "AsyncBox":
        return await self._set("POST", "/terminate")

    # checkpoints and forks

    async def checkpoint(self, *, name: Optional[str] = None, ttl_seconds: Optional[int] = None) -> Checkpoint:
        body = clean({"name": name, "ttl_seconds": ttl_seconds})
        return await self._http.json("POST", f"{self._p}/checkpoint", json_body=body, idempotency_key=str(uuid.uuid4()))

    async def fork(self, *, name: str, idempotency_key: Optional[str] = None) -> "AsyncBox":
        """A new running box from this one's current state."""
        return (await self.fork_many(name=name, count=1, idempotency_key=idempotency_key))[1][0]

    async def fork_many(self, *, name: str, count: int, idempotency_key: Optional[str] = None) -> Tuple[str, List["AsyncBox"]]:
        """count new boxes from one checkpoint of this one: (checkpoint_id, boxes)."""
        r = await self._http.json("POST", f"{self._p}/fork", json_body={"name": name, "count": count}, idempotency_key=idempotency_key or str(uuid.uuid4()))
        return r["checkpoint_id"], [AsyncBox(self._http, b) for b in r["boxes"]]

    async def checkpoints(self) -> List[Checkpoint]:
        return (await self._http.json("GET", "/v1/box-checkpoints", query={"box_id": self.id}))["data"]

    async def restore_to(self, checkpoint_id: str) -> "AsyncBox":
        """Takes this box back to one of its own checkpoints, disk and memory (beyond the spec); what it holds now is lost."""
        return await self._set("POST", "/restore", {"checkpoint_id": checkpoint_id})

    # network and policy

    async def policy(self) -> HttpPolicy:
        return await self._http.json("GET", f"{self._p}/http-policy")

    async def set_policy(self, policy_id: str) -> HttpPolicy:
        return await self._http.json("PUT", f"{self._p}/http-policy", json_body={"policy_id": policy_id})

    async def detach_policy(self) -> PolicyDetached:
        return await self._http.json("DELETE", f"{self._p}/http-policy")

    async def publish(self, guest_port: int, *, protocol: Optional[str] = None) -> Listener:
        return await self._http.json("POST", f"{self._p}/listeners", json_body=clean({"guest_port": guest_port, "protocol": protocol}))

    async def listeners(self) -> List[Listener]:
        return (await self._http.json("GET", f"{self._p}/listeners"))["data"]

    async def unpublish(self, guest_port: int) -> Listener:
        return await self._http.json("DELETE", f"{self._p}/listeners/{guest_port}")

    async def egress_log(self, *, limit: Optional[int] = None, offset: Optional[int] = None) -> List[EgressLogRow]:
        return (await self._http.json("GET", f"{self._p}/egress-log", query={"limit": limit, "offset": offset}))["data"]
