"""Talking to a service over HTTPS with a pinned certificate, as the TypeScript SDK's tls.ts
does: a context saved by ``box context add`` records the SHA-256 fingerprint of the
service's certificate (and the top of its chain, the service's own CA). The handshake
verifies the chain against the system's roots plus that CA, and then the leaf must have the
pinned fingerprint: the check runs right after the handshake, inside httpcore's connect,
before a byte of the request (the key included) is written."""

from __future__ import annotations

import hashlib
import ssl
from typing import Any, Optional

from ._errors import BoxError


def normalize_fingerprint(fp: str) -> str:
    """``AB:CD:...`` from any spelling (``sha256:`` prefix, case and colons ignored)."""
    hexed = "".join(c for c in fp.lower().removeprefix("sha256:") if c in "0123456789abcdef").upper()
    return ":".join(hexed[i : i + 2] for i in range(0, len(hexed), 2))


class BoxTlsPinError(BoxError):
    """The service presented another certificate than the pinned one: no request was sent."""

    def __init__(self, url: str, pinned: str, presented: Optional[str], hint: str = "") -> None:
        self.url = url
        self.pinned = pinned
        self.presented = presented
        super().__init__(
            f"The TLS certificate of {url} is not the one pinned for it: pinned SHA-256 {pinned}, presented {presented or 'an unverifiable one'}. "
            f"Someone may be between you and the service, or its certificate was replaced. Do not send a key to it; if the change is expected, "
            f"{hint or 'pin the new fingerprint'}."
        )


def pinned_ssl_context(ca: Optional[str]) -> ssl.SSLContext:
    """The system's roots plus ``ca``; no host name check (the pin is stronger, and a service is often
    reached at an address). Without a CA the chain is taken as it is: the leaf's pin is what counts."""
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    if ca:
        ctx.load_verify_locations(cadata=ca)
    else:
        ctx.verify_mode = ssl.CERT_NONE
    return ctx


class _Pin:
    def __init__(self, url: str, fingerprint: str, hint: str) -> None:
        self.url = url
        self.want = normalize_fingerprint(fingerprint)
        self.hint = hint

    def check(self, stream: Any) -> None:
        obj = stream.get_extra_info("ssl_object")
        der = obj.getpeercert(True) if obj is not None else None
        presented = normalize_fingerprint(hashlib.sha256(der).hexdigest()) if der else None
        if presented != self.want:
            raise BoxTlsPinError(self.url, self.want, presented, self.hint)


class _PinnedStream:
    def __init__(self, inner: Any, pin: _Pin) -> None:
        self._inner = inner
        self._pin = pin

    def start_tls(self, *args: Any, **kwargs: Any) -> Any:
        tls = self._inner.start_tls(*args, **kwargs)
        try:
            self._pin.check(tls)
        except BoxTlsPinError:
            tls.close()
            raise
        return tls

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class _AsyncPinnedStream(_PinnedStream):
    async def start_tls(self, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        tls = await self._inner.start_tls(*args, **kwargs)
        try:
            self._pin.check(tls)
        except BoxTlsPinError:
            await tls.aclose()
            raise
        return tls


class PinnedBackend:
    """httpcore's network backend whose TLS streams must present the pinned certificate."""

    def __init__(self, inner: Any, url: str, fingerprint: str, hint: str = "") -> None:
        self._inner = inner
        self._pin = _Pin(url, fingerprint, hint)

    def connect_tcp(self, *args: Any, **kwargs: Any) -> Any:
        return _PinnedStream(self._inner.connect_tcp(*args, **kwargs), self._pin)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class AsyncPinnedBackend(PinnedBackend):
    async def connect_tcp(self, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        return _AsyncPinnedStream(await self._inner.connect_tcp(*args, **kwargs), self._pin)


def pin_transport(transport: Any, backend_cls: type, url: str, fingerprint: str, hint: str) -> Any:
    """Puts the pin check under an httpx transport's connection pool (httpx 0.23 and later)."""
    pool = getattr(transport, "_pool", None)
    if pool is None or not hasattr(pool, "_network_backend"):
        raise BoxError("this httpx cannot pin a certificate (no network backend to wrap); upgrade httpx")
    pool._network_backend = backend_cls(pool._network_backend, url, fingerprint, hint)
    return transport
