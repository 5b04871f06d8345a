"""Cron jobs of one box."""

from __future__ import annotations

import uuid
from typing import List, Mapping, Optional

from .._base import clean, seg
from ..types import CronJob, CronRun
from .transport import AsyncHttp


class AsyncBoxCron:
    """Cron jobs of one box."""

    def __init__(self, http: AsyncHttp, box_id: str) -> None:
        self._http = http
        self._base = f"/v1/boxes/{seg(box_id)}/cron"

    async def create(
        self,
        schedule: str,
        command: str,
        *,
        timezone: Optional[str] = None,
        cwd: Optional[str] = None,
        user: Optional[str] = None,
        env: Optional[Mapping[str, str]] = None,
        timeout: Optional[int] = None,
    ) -> CronJob:
        body = clean({"schedule": schedule, "command": command, "timezone": timezone, "cwd": cwd, "user": user, "env": env, "timeout": timeout})
        return await self._http.json("POST", self._base, json_body=body, idempotency_key=str(uuid.uuid4()))

    async def list(self) -> List[CronJob]:
        return (await self._http.json("GET", self._base, query={"limit": 100}))["data"]

    async def get(self, cron_id: str) -> CronJob:
        return await self._http.json("GET", f"{self._base}/{seg(cron_id)}")

    async def delete(self, cron_id: str) -> CronJob:
        return await self._http.json("DELETE", f"{self._base}/{seg(cron_id)}")

    async def run(self, cron_id: str) -> CronRun:
        """Runs the job now."""
        return await self._http.json("POST", f"{self._base}/{seg(cron_id)}/run")

    async def runs(self, cron_id: str) -> List[CronRun]:
        return (await self._http.json("GET", f"{self._base}/{seg(cron_id)}/runs"))["data"]
