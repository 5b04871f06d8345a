"""Python SDK of Box Desktop: local microVM boxes for agents.

``Client`` (sync) and ``AsyncClient`` share one surface: ``client.boxes.create(name=...)``,
``box.exec(...)``, ``box.exec_stream(...)``, ``box.files``, ``box.fork(...)``,
``box.run_code(...)``, cron, volumes, policies; typed errors carry the API's envelope.
The answers' shapes are TypedDicts in ``box_desktop.types``, printed from the service's contract.
"""

from ._async import (
    AsyncBox,
    AsyncBoxCode,
    AsyncBoxCron,
    AsyncBoxes,
    AsyncBoxFiles,
    AsyncCheckpoints,
    AsyncClient,
    AsyncExecStream,
    AsyncInboxes,
    AsyncPolicies,
    AsyncVolume,
    AsyncVolumes,
)
from ._base import CodeExecution, ExecOutcome, ExecResult, OutputEvent, Page
from ._config import ServiceConfig, resolve_config
from ._errors import (
    AuthenticationError,
    BadRequestError,
    BillingError,
    BoxApiError,
    BoxConnectionError,
    BoxError,
    ConflictError,
    InternalServerError,
    NotFoundError,
    PayloadTooLargeError,
    PermissionDeniedError,
    RateLimitError,
    ServiceUnavailableError,
)
from ._tls import BoxTlsPinError
from . import types
from ._sync import Box, BoxCode, BoxCron, Boxes, BoxFiles, Checkpoints, Client, ExecStream, Inboxes, Policies, Volume, Volumes

__version__ = "0.1.0"

__all__ = [
    "AsyncBox",
    "AsyncBoxCode",
    "AsyncBoxCron",
    "AsyncBoxes",
    "AsyncBoxFiles",
    "AsyncCheckpoints",
    "AsyncClient",
    "AsyncExecStream",
    "AsyncInboxes",
    "AsyncPolicies",
    "AsyncVolume",
    "AsyncVolumes",
    "AuthenticationError",
    "BadRequestError",
    "BillingError",
    "Box",
    "BoxApiError",
    "BoxCode",
    "BoxConnectionError",
    "BoxTlsPinError",
    "BoxCron",
    "BoxError",
    "Boxes",
    "BoxFiles",
    "Checkpoints",
    "Client",
    "CodeExecution",
    "ConflictError",
    "ExecOutcome",
    "ExecResult",
    "ExecStream",
    "InternalServerError",
    "NotFoundError",
    "OutputEvent",
    "Page",
    "PayloadTooLargeError",
    "PermissionDeniedError",
    "Inboxes",
    "Policies",
    "RateLimitError",
    "ServiceConfig",
    "ServiceUnavailableError",
    "Volume",
    "Volumes",
    "resolve_config",
    "types",
]
