"""Webhook inboxes."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from .._base import clean
from .transport import AsyncHttp


class AsyncInboxes:
    """Webhook inboxes: local receivers for completion webhooks (what the playground shows)."""

    def __init__(self, http: AsyncHttp) -> None:
        self._http = http

    async def mine(self) -> Dict[str, Any]:
        """Your own inbox (of this key's user): the same one every time, made the first time."""
        return await self._http.json("POST", "/v1/inbox/mine")

    async def create(self, *, respond_status: Optional[int] = None) -> Dict[str, Any]:
        return await self._http.json("POST", "/v1/inbox", json_body=clean({"respond_status": respond_status}))

    async def list(self) -> List[Dict[str, Any]]:
        return (await self._http.json("GET", "/v1/inboxes"))["data"]

    async def deliveries(self, *, inbox_id: Optional[str] = None, limit: Optional[int] = None, offset: Optional[int] = None) -> List[Dict[str, Any]]:
        """Deliveries, newest first (of one inbox, or all of the organization's)."""
        return (await self._http.json("GET", "/v1/inbox", query={"inbox_id": inbox_id, "limit": limit, "offset": offset}))["data"]
