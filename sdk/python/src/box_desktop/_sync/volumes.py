# GENERATED from _async/volumes.py by tools/unasync.py: do not edit.
"""Volumes and their files."""

from __future__ import annotations

import uuid
from typing import List, Optional

from .._base import Described, Page, seg
from ..types import DeletedPath, VolumeEntry, VolumeFileWriteResult, VolumeInfo
from .transport import Http, Upload


class Volume(Described):
    """A volume and its files."""

    _id_field = "volume_id"
    _collection = "/v1/box-volumes"

    def __init__(self, http: Http, info: VolumeInfo) -> None:
        self._http = http
        self.info: VolumeInfo = info

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
