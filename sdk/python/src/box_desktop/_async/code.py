"""A box's code interpreter: runs (whole or streamed) and contexts."""

from __future__ import annotations

from typing import Any, AsyncIterator, Dict, List, Mapping, Optional

from .._base import CodeExecution, clean, code_run_body, seg
from ..types import CodeContext, ContextDeleted
from .transport import AsyncHttp, ndjson


class AsyncBoxCode:
    """The box's code interpreter: runs and contexts."""

    def __init__(self, http: AsyncHttp, box_id: str) -> None:
        self._http = http
        self._base = f"/v1/boxes/{seg(box_id)}/code"

    async def run(
        self, code: str, *, language: Optional[str] = None, context: Any = None, env: Optional[Mapping[str, str]] = None, timeout: Optional[float] = None
    ) -> CodeExecution:
        body = code_run_body(code, language, context, env, timeout)
        return CodeExecution.from_wire(await self._http.json("POST", f"{self._base}/run", json_body=body))

    async def run_stream(
        self, code: str, *, language: Optional[str] = None, context: Any = None, env: Optional[Mapping[str, str]] = None, timeout: Optional[float] = None
    ) -> AsyncIterator[Dict[str, Any]]:
        """Yields stdout, stderr, result and error events as they happen; the last is ``end``
        (its ``execution`` a CodeExecution)."""
        body = code_run_body(code, language, context, env, timeout)
        res = await self._http.send("POST", f"{self._base}/run", query={"stream": 1}, json_body=body, headers={"accept": "application/x-ndjson"}, stream=True)
        async for ev in ndjson(res):
            if ev.get("type") == "end":
                ev = {**ev, "execution": CodeExecution.from_wire(ev["execution"])}
            yield ev

    async def create_context(self, *, language: Optional[str] = None, cwd: Optional[str] = None, env: Optional[Mapping[str, str]] = None) -> CodeContext:
        return await self._http.json("POST", f"{self._base}/contexts", json_body=clean({"language": language, "cwd": cwd, "env": env}))

    async def list_contexts(self) -> List[CodeContext]:
        return (await self._http.json("GET", f"{self._base}/contexts"))["data"]

    async def delete_context(self, context: Any) -> ContextDeleted:
        cid = context if isinstance(context, str) else context["id"]
        return await self._http.json("DELETE", f"{self._base}/contexts/{seg(cid)}")

    async def restart_context(self, context: Any) -> CodeContext:
        cid = context if isinstance(context, str) else context["id"]
        return await self._http.json("POST", f"{self._base}/contexts/{seg(cid)}/restart")
