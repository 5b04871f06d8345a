"""Typed errors carrying the spec's error envelope."""

from __future__ import annotations

import email.utils
import json
import time
from typing import Any, Dict, Mapping, Optional


class BoxError(Exception):
    """Every error the SDK raises is a BoxError."""


class BoxConnectionError(BoxError):
    """The service could not be reached: nothing was answered."""

    def __init__(self, message: str, url: str) -> None:
        super().__init__(message)
        self.url = url


class BoxApiError(BoxError):
    """The service answered an error: ``status`` and the envelope's ``error`` object in ``body``
    (message, type, param, code and any extra field such as billing_url)."""

    def __init__(self, status: int, body: Dict[str, Any], headers: Mapping[str, str], request: str) -> None:
        self.status = status
        self.body = body
        self.headers = dict(headers)
        self.request = request
        self.message: str = body.get("message", "")
        self.type: str = body.get("type", "server_error")
        self.param: Optional[str] = body.get("param")
        self.code: Any = body.get("code")
        self.retry_after: Optional[float] = retry_after_seconds(headers)
        extra = "".join([f", param {self.param}" if self.param else "", f", code {self.code}" if self.code is not None else ""])
        super().__init__(f"{self.message} ({status} {self.type}{extra})")

    @property
    def envelope(self) -> Dict[str, Any]:
        """The envelope exactly as the service sent it: ``{"error": {...}}``."""
        return {"error": self.body}


class BadRequestError(BoxApiError):
    pass


class AuthenticationError(BoxApiError):
    pass


class BillingError(BoxApiError):
    pass


class PermissionDeniedError(BoxApiError):
    pass


class NotFoundError(BoxApiError):
    pass


class ConflictError(BoxApiError):
    pass


class PayloadTooLargeError(BoxApiError):
    pass


class RateLimitError(BoxApiError):
    pass


class InternalServerError(BoxApiError):
    pass


class ServiceUnavailableError(InternalServerError):
    pass


_BY_STATUS = {
    400: BadRequestError,
    401: AuthenticationError,
    402: BillingError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    413: PayloadTooLargeError,
    429: RateLimitError,
    503: ServiceUnavailableError,
}


def retry_after_seconds(headers: Mapping[str, str]) -> Optional[float]:
    value = None
    for k, v in headers.items():
        if k.lower() == "retry-after":
            value = v.strip()
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def error_from(status: int, reason: str, text: str, headers: Mapping[str, str], request: str) -> BoxApiError:
    body: Optional[Dict[str, Any]] = None
    try:
        parsed = json.loads(text)
        if isinstance(parsed, dict) and isinstance(parsed.get("error"), dict) and isinstance(parsed["error"].get("message"), str):
            body = dict(parsed["error"])
            body.setdefault("param", None)
            body.setdefault("code", None)
    except ValueError:
        body = None
    if body is None:
        body = {
            "message": f"HTTP {status} {reason}" + (f": {text[:200]}" if text else ""),
            "type": "server_error" if status >= 500 else "invalid_request_error",
            "param": None,
            "code": None,
        }
    cls = _BY_STATUS.get(status) or (InternalServerError if status >= 500 else BoxApiError)
    return cls(status, body, headers, request)
