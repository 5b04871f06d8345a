"""The client: the transport and the resources on it, and the organization-wide calls."""

from __future__ import annotations

from typing import Any, List, Mapping, Optional

from ..types import CronJob, LineageEdge, Whoami
from .boxes import AsyncBoxes
from .checkpoints import AsyncCheckpoints
from .inboxes import AsyncInboxes
from .policies import AsyncPolicies
from .transport import AsyncHttp
from .volumes import AsyncVolumes


class AsyncClient:
    """The Box Desktop client. ``AsyncClient()`` finds the local service like the ``box`` CLI
    (BOX_URL, BOX_API_KEY, the running service's endpoint and key files);
    ``AsyncClient(url=..., api_key=...)`` names them."""

    def __init__(
        self,
        url: Optional[str] = None,
        api_key: Optional[str] = None,
        *,
        max_retries: int = 3,
        max_retry_delay: float = 60.0,
        timeout: Optional[float] = None,
        env: Optional[Mapping[str, str]] = None,
    ) -> None:
        self._http = AsyncHttp(url, api_key, max_retries, max_retry_delay, timeout, env)
        self.boxes = AsyncBoxes(self._http)
        self.checkpoints = AsyncCheckpoints(self._http)
        self.volumes = AsyncVolumes(self._http)
        self.policies = AsyncPolicies(self._http)
        self.inboxes = AsyncInboxes(self._http)

    @property
    def url(self) -> str:
        return self._http.config.url

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()

    async def whoami(self) -> Whoami:
        return await self._http.json("GET", "/v1/whoami")

    async def cron_jobs(self) -> List[CronJob]:
        """Every cron job of the organization's boxes."""
        return (await self._http.json("GET", "/v1/cron"))["data"]

    async def lineage(self) -> List[LineageEdge]:
        return (await self._http.json("GET", "/v1/box-lineage"))["data"]
