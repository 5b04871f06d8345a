# GENERATED from _async/policies.py by tools/unasync.py: do not edit.
"""HTTP (egress) policies."""

from __future__ import annotations

import uuid
from typing import Any, List, Mapping, Optional

from .._base import Page, clean, seg
from ..types import HttpPolicy, PolicyPreset
from .transport import Http


class Policies:
    """HTTP (egress) policies: what boxes may reach, and secrets injected on the way out."""

    def __init__(self, http: Http) -> None:
        self._http = http

    def presets(self) -> List[PolicyPreset]:
        return (self._http.json("GET", "/v1/http-policies/presets"))["data"]

    def create(self, *, name: Optional[str] = None, document: Optional[Mapping[str, Any]] = None, preset: Optional[str] = None) -> HttpPolicy:
        body = clean({"name": name, "document": document, "preset": preset})
        return self._http.json("POST", "/v1/http-policies", json_body=body, idempotency_key=str(uuid.uuid4()))

    def list(self, *, limit: Optional[int] = None, offset: Optional[int] = None) -> Page[HttpPolicy]:
        p = self._http.json("GET", "/v1/http-policies", query={"limit": limit, "offset": offset})
        return Page(p["data"], p["limit"], p["offset"], p["total"], p["has_more"])

    def get(self, policy_id: str) -> HttpPolicy:
        return self._http.json("GET", f"/v1/http-policies/{seg(policy_id)}")

    def update(self, policy_id: str, *, name: Optional[str] = None, document: Optional[Mapping[str, Any]] = None) -> HttpPolicy:
        return self._http.json("PATCH", f"/v1/http-policies/{seg(policy_id)}", json_body=clean({"name": name, "document": document}))

    def delete(self, policy_id: str) -> HttpPolicy:
        return self._http.json("DELETE", f"/v1/http-policies/{seg(policy_id)}")
