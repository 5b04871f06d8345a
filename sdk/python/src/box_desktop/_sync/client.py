# GENERATED from _async/client.py by tools/unasync.py: do not edit.
"""The client: the transport and the resources on it, and the organization-wide calls."""

from __future__ import annotations

from typing import Any, List, Mapping, Optional

from ..types import CronJob, LineageEdge, Whoami
from .boxes import Boxes
from .checkpoints import Checkpoints
from .inboxes import Inboxes
from .policies import Policies
from .transport import Http
from .volumes import Volumes


class Client:
    """The Box Desktop client. ``Client()`` finds the local service like the ``box`` CLI
    (BOX_URL, BOX_API_KEY, the running service's endpoint and key files);
    ``Client(url=..., api_key=...)`` names them."""

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
        self._http = Http(url, api_key, max_retries, max_retry_delay, timeout, env)
        self.boxes = Boxes(self._http)
        self.checkpoints = Checkpoints(self._http)
        self.volumes = Volumes(self._http)
        self.policies = Policies(self._http)
        self.inboxes = Inboxes(self._http)

    @property
    def url(self) -> str:
        return self._http.config.url

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def whoami(self) -> Whoami:
        return self._http.json("GET", "/v1/whoami")

    def cron_jobs(self) -> List[CronJob]:
        """Every cron job of the organization's boxes."""
        return (self._http.json("GET", "/v1/cron"))["data"]

    def lineage(self) -> List[LineageEdge]:
        return (self._http.json("GET", "/v1/box-lineage"))["data"]
