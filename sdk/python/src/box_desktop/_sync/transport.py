# GENERATED from _async/transport.py by tools/unasync.py: do not edit.
"""The transport: base URL and key, typed errors, retries of 429/503 (Retry-After), NDJSON."""

from __future__ import annotations

import time
import json
import socket
from typing import Any, Iterable, Iterator, Dict, Mapping, Optional, Union

import httpx

from .._base import query_text, retry_delay
from .._config import ServiceConfig, resolve_config
from .._errors import BoxConnectionError, BoxError, error_from
from .._tls import PinnedBackend, pin_transport, pinned_ssl_context


Upload = Union[bytes, bytearray, str, Iterable[bytes], Any]
"""bytes, text (UTF-8), an iterable of bytes, or a binary file object."""


def _file_chunks(f: Any) -> Iterator[bytes]:
    while True:
        chunk = f.read(65536)
        if not chunk:
            return
        yield chunk


class NoDelayBackend:
    """httpcore's network backend with TCP_NODELAY on each connection. httpcore writes a
    request's headers and its body separately; with Nagle's algorithm on, a body sent on a
    reused connection waits for the server's delayed ACK (~40 ms a request here)."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def connect_tcp(self, *args: Any, **kwargs: Any) -> Any:
        stream = self._inner.connect_tcp(*args, **kwargs)
        sock = stream.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return stream

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def _transport(config: ServiceConfig) -> httpx.HTTPTransport:
    """TCP_NODELAY; over HTTPS with a pinned certificate (a context's), only that certificate (_tls.py)."""
    pinned = bool(config.tls_fingerprint) and config.url.startswith("https:")
    tls: Any = pinned_ssl_context(config.tls_ca) if pinned else True
    try:  # httpx >= 0.24.1 takes socket options
        t = httpx.HTTPTransport(verify=tls, socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)])  # type: ignore[call-arg]
    except TypeError:  # Debian 12's httpx 0.23: wrap the pool's network backend
        t = httpx.HTTPTransport(verify=tls)
        pool = getattr(t, "_pool", None)
        if pool is not None and hasattr(pool, "_network_backend"):
            pool._network_backend = NoDelayBackend(pool._network_backend)
    if pinned:
        hint = (
            f"remove the context and add it again (`npx box context rm {config.context}`, `npx box context add {config.context} {config.url}`)"
            if config.context
            else ""
        )
        pin_transport(t, PinnedBackend, config.url, config.tls_fingerprint or "", hint)
    return t


class Http:
    """The transport: base URL, key, typed errors and retries of 429/503 (Retry-After)."""

    def __init__(
        self,
        url: Optional[str],
        api_key: Optional[str],
        max_retries: int,
        max_retry_delay: float,
        timeout: Optional[float],
        env: Optional[Mapping[str, str]],
    ) -> None:
        self.config: ServiceConfig = resolve_config(url, api_key, env)
        self.max_retries = max_retries
        self.max_retry_delay = max_retry_delay
        self.client = httpx.Client(base_url=self.config.url, timeout=httpx.Timeout(timeout, connect=10.0), transport=_transport(self.config))

    def close(self) -> None:
        self.client.close()

    def send(
        self,
        method: str,
        path: str,
        *,
        query: Optional[Mapping[str, Any]] = None,
        json_body: Any = None,
        content: Any = None,
        headers: Optional[Mapping[str, str]] = None,
        idempotency_key: Optional[str] = None,
        stream: bool = False,
    ) -> httpx.Response:
        """Sends a request and answers the response once it is 2xx (streamed when asked);
        an error answer raises its typed BoxApiError."""
        if not self.config.api_key:
            raise BoxError(f"no API key: pass api_key, set BOX_API_KEY, or start the service so that it writes {self.config.key_source}")
        h = {"authorization": f"Bearer {self.config.api_key}", **(headers or {})}
        if idempotency_key:
            h["idempotency-key"] = idempotency_key
        body: Any = None
        replayable = True
        if json_body is not None:
            body = json.dumps(json_body, separators=(",", ":")).encode()  # once: retries send the same bytes
            h["content-type"] = "application/json"
        elif content is not None:
            h.setdefault("content-type", "application/octet-stream")
            if isinstance(content, str):
                body = content.encode()
            elif isinstance(content, (bytes, bytearray, memoryview)):
                body = bytes(content)
            else:
                replayable = False
                body = _file_chunks(content) if hasattr(content, "read") else content
        params = query_text(query or {})
        what = f"{method} {path}"
        attempt = 0
        while True:
            request = self.client.build_request(method, path, params=params, headers=h, content=body)
            try:
                res = self.client.send(request, stream=True)
            except httpx.TransportError as e:
                raise BoxConnectionError(
                    f"cannot reach the box service at {self.config.url}{path} ({e!r}); is it running? The URL came from {self.config.url_source}",
                    f"{self.config.url}{path}",
                ) from e
            if res.is_success:
                if not stream:
                    res.read()
                return res
            res.read()
            delay = retry_delay(res.status_code, res.headers, attempt, self.max_retries, self.max_retry_delay, replayable)
            if delay is None:
                raise error_from(res.status_code, res.reason_phrase, res.text, res.headers, what)
            attempt += 1
            time.sleep(delay)

    def json(self, method: str, path: str, **kw: Any) -> Any:
        res = self.send(method, path, **kw)
        if not res.content:
            return None
        try:
            return res.json()
        except ValueError:
            raise BoxError(f"the service answered {method} {path} with something that is not JSON: {res.text[:200]}") from None


def ndjson(res: httpx.Response) -> Iterator[Dict[str, Any]]:
    """The objects of a streamed NDJSON body, one a line; closes the response."""
    try:
        for line in res.iter_lines():
            line = line.strip()
            if line:
                yield json.loads(line)
    finally:
        res.close()
