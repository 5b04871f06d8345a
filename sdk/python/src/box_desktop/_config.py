"""Finding the service the way the ``box`` CLI does."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Mapping, Optional

DEFAULT_URL = "http://127.0.0.1:8787"


@dataclass(frozen=True)
class ServiceConfig:
    url: str
    api_key: Optional[str]
    url_source: str
    key_source: str


def _live_endpoint(directory: str) -> Optional[dict]:
    try:
        with open(os.path.join(directory, "endpoint.json"), encoding="utf-8") as f:
            rec = json.load(f)
    except (OSError, ValueError):
        return None
    if not isinstance(rec, dict) or not isinstance(rec.get("url"), str) or not isinstance(rec.get("data_dir"), str):
        return None
    pid = rec.get("pid")
    if not isinstance(pid, int) or isinstance(pid, bool):
        return None
    try:
        os.kill(pid, 0)
    except PermissionError:
        pass
    except OSError:
        return None
    return rec


def resolve_config(url: Optional[str] = None, api_key: Optional[str] = None, env: Optional[Mapping[str, str]] = None) -> ServiceConfig:
    """BOX_URL, else the endpoint file of a running service (``endpoint.json`` in BOX_DATA_DIR,
    default ~/.box-desktop, kept while its pid lives), else http://127.0.0.1:8787. The key:
    BOX_API_KEY, else the key file ``<data dir>/api-key``. Explicit values win."""
    env = os.environ if env is None else env
    home = env.get("HOME") or os.path.expanduser("~")
    base = os.path.abspath(env.get("BOX_DATA_DIR") or os.path.join(home, ".box-desktop"))
    found = None if (url or env.get("BOX_URL")) else _live_endpoint(base)
    chosen = (url or env.get("BOX_URL") or (found or {}).get("url") or DEFAULT_URL).rstrip("/")
    url_source = "the url argument" if url else "BOX_URL" if env.get("BOX_URL") else os.path.join(base, "endpoint.json") if found else "the default"
    if api_key:
        return ServiceConfig(chosen, api_key, url_source, "the api_key argument")
    if env.get("BOX_API_KEY"):
        return ServiceConfig(chosen, env["BOX_API_KEY"].strip(), url_source, "BOX_API_KEY")
    key_file = os.path.join(os.path.abspath(found["data_dir"]) if found else base, "api-key")
    try:
        with open(key_file, encoding="utf-8") as f:
            key = f.read().strip() or None
    except OSError:
        key = None
    return ServiceConfig(chosen, key, url_source, key_file)
