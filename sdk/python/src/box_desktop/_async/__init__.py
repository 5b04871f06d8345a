"""The asynchronous client. A module per resource; _sync/ is generated from this package,
file by file (tools/unasync.py)."""

from .box import AsyncBox
from .boxes import AsyncBoxes
from .checkpoints import AsyncCheckpoints
from .client import AsyncClient
from .code import AsyncBoxCode
from .cron import AsyncBoxCron
from .exec import AsyncExecStream
from .files import AsyncBoxFiles
from .inboxes import AsyncInboxes
from .policies import AsyncPolicies
from .transport import AsyncHttp, AsyncNoDelayBackend, Upload
from .volumes import AsyncVolume, AsyncVolumes
