# GENERATED from _async/boxes.py by tools/unasync.py: do not edit.
"""Boxes: create, get (by id or name), list and iterate."""

from __future__ import annotations

import uuid
from typing import Any, Iterator, List, Optional

from .._base import APP_ID, BOX_ID, Page, clean, seg
from .._errors import BoxError, NotFoundError
from .box import Box
from .transport import Http


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
