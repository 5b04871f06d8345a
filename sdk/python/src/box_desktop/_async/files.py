"""Files inside a running box."""

from __future__ import annotations

from typing import Any, AsyncIterator, Dict, List, Optional, Union

from .._base import seg
from ..types import FileWriteResult, VolumeEntry
from .transport import AsyncHttp, Upload


class AsyncBoxFiles:
    """Files inside a running box: bytes, text and streams both ways."""

    def __init__(self, http: AsyncHttp, box_id: str) -> None:
        self._http = http
        self._base = f"/v1/boxes/{seg(box_id)}"

    async def write(self, path: str, data: Upload, *, mode: Optional[Union[str, int]] = None, create_parents: Optional[bool] = None) -> FileWriteResult:
        """Writes a file from bytes, text, an iterable of bytes or a binary file object."""
        m = format(mode, "04o") if isinstance(mode, int) else mode
        return await self._http.json("PUT", f"{self._base}/files", query={"path": path, "mode": m, "create_parents": create_parents}, content=data)

    async def read(self, path: str) -> bytes:
        return (await self._http.send("GET", f"{self._base}/files", query={"path": path})).content

    async def read_text(self, path: str, encoding: str = "utf-8") -> str:
        return (await self.read(path)).decode(encoding)

    async def read_stream(self, path: str, chunk_size: int = 65536) -> AsyncIterator[bytes]:
        """The file's bytes in pieces, as it downloads."""
        res = await self._http.send("GET", f"{self._base}/files", query={"path": path}, stream=True)
        try:
            async for chunk in res.aiter_bytes(chunk_size):
                yield chunk
        finally:
            await res.aclose()

    async def list(self, path: str = "/") -> List[VolumeEntry]:
        return (await self._http.json("GET", f"{self._base}/directories", query={"path": path}))["entries"]

    async def mkdir(self, path: str) -> VolumeEntry:
        """Creates a folder (and missing parents); ConflictError when something is already there."""
        return await self._http.json("POST", f"{self._base}/directories", json_body={"path": path})

    async def move(self, src: str, dst: str) -> VolumeEntry:
        """Renames or moves a path inside the box; ConflictError when dst exists."""
        return await self._http.json("POST", f"{self._base}/paths/move", json_body={"from": src, "to": dst})

    async def remove(self, path: str, *, recursive: bool = False) -> Dict[str, Any]:
        """Deletes a file, a link or an empty folder; recursive=True a folder with its contents."""
        return await self._http.json("DELETE", f"{self._base}/paths", query={"path": path, "recursive": recursive or None})
