# GENERATED from _async/__init__.py by tools/unasync.py: do not edit.
"""The synchronous client: GENERATED from _async/ by tools/unasync.py, do not edit."""

from .box import Box
from .boxes import Boxes
from .checkpoints import Checkpoints
from .client import Client
from .code import BoxCode
from .cron import BoxCron
from .exec import ExecStream
from .files import BoxFiles
from .inboxes import Inboxes
from .policies import Policies
from .transport import Http, NoDelayBackend, Upload
from .volumes import Volume, Volumes
