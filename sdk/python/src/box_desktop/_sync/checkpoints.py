# GENERATED from _async/checkpoints.py by tools/unasync.py: do not edit.
"""Checkpoints of the organization's boxes, and new boxes from them."""

from __future__ import annotations

import uuid
from typing import List, Optional

from .._base import seg
from ..types import Checkpoint
from .box import Box
from .transport import Http


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
