"""Commands: a running command's output as a stream of events, its stdin, its end."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any, AsyncIterator, Dict, Optional, Sequence, Union

import httpx

from .._base import ExecDecoder, ExecOutcome, OutputEvent, clean, seg
from .._errors import BoxConnectionError, BoxError
from .transport import AsyncHttp, ndjson


_REATTACH_TRIES = 3
_PIECE = 8 * 1024 * 1024


class AsyncExecStream:
    """A running command: iterate it for its output events as they happen, then ``wait()``.
    A stream broken by the network re-attaches to the same command (its idempotency key
    replays it; pieces already delivered are skipped), so the command runs once."""

    def __init__(self, http: AsyncHttp, box_id: str, command: Union[str, Sequence[str]], opts: Dict[str, Any], stdin: Optional[Union[str, bytes]]) -> None:
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
        self._iter: Optional[AsyncIterator[OutputEvent]] = None

    @property
    def exec_id(self) -> str:
        return self._decoder.exec_id

    @property
    def outcome(self) -> Optional[ExecOutcome]:
        return self._decoder.outcome

    def __aiter__(self) -> AsyncIterator[OutputEvent]:
        if self._started:
            raise BoxError("an exec stream can be iterated once")
        self._started = True
        self._iter = self._run()
        return self._iter

    async def wait(self) -> ExecOutcome:
        """How the command ended (reading and dropping output not iterated yet)."""
        if not self._started:
            async for _ in self:
                pass
        if self._decoder.outcome is None:
            raise BoxError("the command has not ended: finish iterating its output first")
        return self._decoder.outcome

    async def cancel(self, force: bool = False) -> None:
        """Stops the command (SIGTERM; force: SIGKILL)."""
        if not self.exec_id:
            raise BoxError("the command has not started yet")
        await self._http.json("POST", f"/v1/boxes/{seg(self._box_id)}/exec/{seg(self.exec_id)}/cancel", json_body={"force": force})

    async def _send_stdin(self, data: Union[str, bytes]) -> None:
        raw = data.encode() if isinstance(data, str) else bytes(data)
        path = f"/v1/boxes/{seg(self._box_id)}/exec/{seg(self.exec_id)}/stdin"
        at = 0
        while True:
            last = at + _PIECE >= len(raw)
            await self._http.json("PUT", path, query={"offset": at, "eof": "true" if last else None}, content=raw[at : at + _PIECE])
            at += _PIECE
            if last:
                return

    async def _run(self) -> AsyncIterator[OutputEvent]:
        d = self._decoder
        path = f"/v1/boxes/{seg(self._box_id)}/exec"
        attempt = 0
        while True:
            try:
                res = await self._http.send("POST", path, json_body=self._body, stream=True)
            except BoxConnectionError:
                if attempt < _REATTACH_TRIES and d.exec_id:
                    attempt += 1
                    await asyncio.sleep(0.3 * attempt)
                    continue
                raise
            try:
                async for ev in ndjson(res):
                    first = ev.get("type") == "started" and not d.exec_id
                    out = d.feed(ev)
                    if first and self._stdin is not None:
                        await self._send_stdin(self._stdin)
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
