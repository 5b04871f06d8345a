"""Finding the service the way the ``box`` CLI does."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Mapping, Optional, Tuple

from ._errors import BoxError

DEFAULT_URL = "http://127.0.0.1:8787"


LOCAL_CONTEXT = "local"


@dataclass(frozen=True)
class ServiceConfig:
    url: str
    api_key: Optional[str]
    url_source: str
    key_source: str
    #: SHA-256 fingerprint of the service's certificate, pinned on first contact (a context's, over HTTPS).
    tls_fingerprint: Optional[str] = None
    #: PEM of the service's CA, trusted besides the system's roots.
    tls_ca: Optional[str] = None
    #: The context in use (BOX_CONTEXT, else the current one), if any.
    context: Optional[str] = None


def contexts_path(env: Mapping[str, str]) -> str:
    """``~/.box-desktop/contexts.json``: the contexts ``box context add|use|ls|rm`` keeps (0600)."""
    return os.path.join(env.get("HOME") or os.path.expanduser("~"), ".box-desktop", "contexts.json")


def read_contexts(env: Mapping[str, str]) -> dict:
    """``{"current": name or None, "contexts": {name: {url, api_key, tls_fingerprint, tls_ca}}}``."""
    path = contexts_path(env)
    try:
        with open(path, encoding="utf-8") as f:
            raw = f.read()
    except OSError:
        return {"current": None, "contexts": {}}
    try:
        parsed = json.loads(raw)
    except ValueError as e:
        raise BoxError(f"{path} is not valid JSON ({e}); fix or remove it") from None
    contexts = {}
    for name, c in (parsed.get("contexts") or {}).items() if isinstance(parsed, dict) else []:
        if isinstance(c, dict) and isinstance(c.get("url"), str) and isinstance(c.get("api_key"), str):
            contexts[name] = {"url": c["url"], "api_key": c["api_key"], "tls_fingerprint": c.get("tls_fingerprint"), "tls_ca": c.get("tls_ca")}
    current = parsed.get("current") if isinstance(parsed, dict) else None
    return {"current": current if isinstance(current, str) and current in contexts else None, "contexts": contexts}


def selected_context(env: Mapping[str, str]) -> Optional[Tuple[str, dict, str]]:
    """The context in use: BOX_CONTEXT, else the current one; None for the local service.
    An unknown BOX_CONTEXT raises, naming the known ones."""
    data = read_contexts(env)
    wanted = (env.get("BOX_CONTEXT") or "").strip()
    if wanted:
        if wanted == LOCAL_CONTEXT:
            return None
        c = data["contexts"].get(wanted)
        if c is None:
            known = list(data["contexts"])
            listed = f"known: {', '.join(known)}, " if known else ""
            raise BoxError(
                f'BOX_CONTEXT={wanted}: no such context ({listed}"{LOCAL_CONTEXT}" for the local service; `box context add` adds one)'
            )
        return wanted, c, "BOX_CONTEXT"
    if data["current"]:
        return data["current"], data["contexts"][data["current"]], contexts_path(env)
    return None


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
    """BOX_URL, else a context (BOX_CONTEXT, else the current one of ``box context use``: its URL,
    key and pinned certificate), else the endpoint file of a running service (``endpoint.json``
    in BOX_DATA_DIR, default ~/.box-desktop, kept while its pid lives), else
    http://127.0.0.1:8787. The key: BOX_API_KEY, else the key file ``<data dir>/api-key``.
    Explicit values win."""
    env = os.environ if env is None else env
    ctx = None if (url or env.get("BOX_URL")) else selected_context(env)
    if ctx is not None:
        name, c, source = ctx
        return ServiceConfig(
            url=c["url"].rstrip("/"),
            api_key=api_key or c["api_key"],
            url_source=f"context {name} ({source})",
            key_source="the api_key argument" if api_key else f"context {name}",
            tls_fingerprint=c["tls_fingerprint"] or None,
            tls_ca=c["tls_ca"] or None,
            context=name,
        )
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
