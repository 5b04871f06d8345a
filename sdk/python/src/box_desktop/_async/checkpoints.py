"""Checkpoints of the organization's boxes, and new boxes from them."""

from __future__ import annotations

import uuid
from typing import List, Optional

from .._base import seg
from ..types import Checkpoint
from .box import AsyncBox
from .transport import AsyncHttp


class AsyncCheckpoints:
    def __init__(self, http: AsyncHttp) -> None:
        self._http = http

    async def list(self, *, box_id: Optional[str] = None, name: Optional[str] = None) -> List[Checkpoint]:
        return (await self._http.json("GET", "/v1/box-checkpoints", query={"box_id": box_id, "name": name}))["data"]

    async def get(self, checkpoint_id: str) -> Checkpoint:
        return await self._http.json("GET", f"/v1/box-checkpoints/{seg(checkpoint_id)}")

    async def delete(self, checkpoint_id: str) -> Checkpoint:
        return await self._http.json("DELETE", f"/v1/box-checkpoints/{seg(checkpoint_id)}")

    async def restore(self, checkpoint_id: str, *, name: str, idempotency_key: Optional[str] = None) -> AsyncBox:
        """A new box from a checkpoint."""
        body = {"checkpoint_id": checkpoint_id, "name": name}
        info = await self._http.json("POST", "/v1/boxes/from_checkpoint", json_body=body, idempotency_key=idempotency_key or str(uuid.uuid4()))
        return AsyncBox(self._http, info)
