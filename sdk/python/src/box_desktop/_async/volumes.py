"""Volumes and their files."""

from __future__ import annotations

import uuid
from typing import List, Optional

from .._base import Described, Page, seg
from ..types import DeletedPath, VolumeEntry, VolumeFileWriteResult, VolumeInfo
from .transport import AsyncHttp, Upload


class AsyncVolume(Described):
    """A volume and its files."""

    _id_field = "volume_id"
    _collection = "/v1/box-volumes"

    def __init__(self, http: AsyncHttp, info: VolumeInfo) -> None:
        self._http = http
        self.info: VolumeInfo = info

    async def write(self, path: str, data: Upload, *, mode: Optional[str] = None, create_parents: Optional[bool] = None) -> VolumeFileWriteResult:
        return await self._http.json("PUT", f"{self._p}/files", query={"path": path, "mode": mode, "create_parents": create_parents}, content=data)

    async def read(self, path: str) -> bytes:
        return (await self._http.send("GET", f"{self._p}/files", query={"path": path})).content

    async def read_text(self, path: str, encoding: str = "utf-8") -> str:
        return (await self.read(path)).decode(encoding)

    async def list(self, path: Optional[str] = None) -> List[VolumeEntry]:
        return (await self._http.json("GET", f"{self._p}/directories", query={"path": path}))["entries"]

    async def stat(self, path: str) -> VolumeEntry:
        return await self._http.json("GET", f"{self._p}/paths", query={"path": path})

    async def mkdir(self, path: str) -> VolumeEntry:
        return await self._http.json("POST", f"{self._p}/directories", json_body={"path": path})

    async def move(self, src: str, dst: str) -> VolumeEntry:
        return await self._http.json("POST", f"{self._p}/paths/move", json_body={"from": src, "to": dst})

    async def remove(self, path: str, *, recursive: bool = False) -> DeletedPath:
        return await self._http.json("DELETE", f"{self._p}/paths", query={"path": path, "recursive": recursive or None})

    async def delete(self) -> VolumeInfo:
        self.info = await self._http.json("DELETE", self._p)
        return self.info


class AsyncVolumes:
    def __init__(self, http: AsyncHttp) -> None:
        self._http = http

    async def create(self, *, name: str, idempotency_key: Optional[str] = None) -> AsyncVolume:
        info = await self._http.json("POST", "/v1/box-volumes", json_body={"name": name}, idempotency_key=idempotency_key or str(uuid.uuid4()))
        return AsyncVolume(self._http, info)

    async def get(self, volume_id: str) -> AsyncVolume:
        return AsyncVolume(self._http, await self._http.json("GET", f"/v1/box-volumes/{seg(volume_id)}"))

    async def list(self, *, limit: Optional[int] = None, offset: Optional[int] = None) -> Page[AsyncVolume]:
        p = await self._http.json("GET", "/v1/box-volumes", query={"limit": limit, "offset": offset})
        return Page([AsyncVolume(self._http, v) for v in p["data"]], p["limit"], p["offset"], p["total"], p["has_more"])
