"""What the sync and the async clients share: data shapes and the rules of the wire."""

from __future__ import annotations

import base64
import codecs
import random
import re
from dataclasses import dataclass, field
from typing import Any, Dict, Generic, List, Mapping, Optional, TypeVar
from urllib.parse import quote

from .types import BoxInfo, CodeError, CodeResult

T = TypeVar("T")

BOX_ID = re.compile(r"^box_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)
APP_ID = re.compile(r"^app_[0-9a-f-]{36}$", re.I)


def seg(value: Any) -> str:
    """A path segment, percent-encoded ("/" too)."""
    return quote(str(value), safe="")


def clean(d: Mapping[str, Any]) -> Dict[str, Any]:
    """Drops None values (the API's optional fields are absent, not null, unless said)."""
    return {k: v for k, v in d.items() if v is not None}


def query_text(d: Mapping[str, Any]) -> Dict[str, str]:
    return {k: ("true" if v is True else "false" if v is False else str(v)) for k, v in d.items() if v is not None}


def retry_delay(status: int, headers: Mapping[str, str], attempt: int, max_retries: int, max_delay: float, replayable: bool) -> Optional[float]:
    """Seconds to wait before sending again, or None when the answer is final. A 429 with
    Retry-After never started and a 503 did not run (spec, rules for 429 and 503): both are
    sent again unchanged; a 429 without Retry-After ran and hit a limit, so it is final."""
    from ._errors import retry_after_seconds

    if attempt >= max_retries or not replayable:
        return None
    if any(k.lower() == "x-should-retry" and v == "false" for k, v in headers.items()):
        return None
    after = retry_after_seconds(headers)
    if status == 429 and after is None:
        return None
    if status not in (429, 503):
        return None
    delay = after if after is not None else min(8.0, 0.5 * 2**attempt) * (0.75 + random.random() / 2)
    return None if delay > max_delay else delay



class Described:
    """An object of the API held as its description, ``info`` (as of the last call that
    answered it): its id, name and path come from it."""

    _id_field = ""
    """The field of ``info`` that holds the id."""
    _collection = ""
    """The path of the collection the object is in."""
    info: Any

    @property
    def id(self) -> str:
        return self.info[self._id_field]

    @property
    def name(self) -> str:
        return self.info["name"]

    @property
    def _p(self) -> str:
        return f"{self._collection}/{seg(self.id)}"

@dataclass(frozen=True)
class OutputEvent:
    """One piece of a command's output, in the order the box produced it."""

    stream: str
    """``"stdout"`` or ``"stderr"``."""
    data: str
    """The bytes as text (UTF-8; a character split across pieces is kept whole)."""
    bytes: bytes
    seq: int


@dataclass(frozen=True)
class ExecOutcome:
    exec_id: str
    status: str
    """succeeded, failed, timed_out or cancelled."""
    exit_code: Optional[int]
    """None when the command did not exit by itself (killed, timed out)."""
    errors: List[Dict[str, str]] = field(default_factory=list)


@dataclass(frozen=True)
class ExecResult(ExecOutcome):
    stdout: str = ""
    stderr: str = ""


@dataclass
class Page(Generic[T]):
    data: List[T]
    limit: int
    offset: int
    total: int
    has_more: bool


@dataclass(frozen=True)
class CodeExecution:
    """A finished run of the code interpreter."""

    context_id: str
    language: str
    execution_count: Optional[int]
    results: List[CodeResult]
    stdout: str
    stderr: str
    error: Optional[CodeError]
    truncated: bool
    duration_ms: float

    @property
    def text(self) -> Optional[str]:
        """The main result's text/plain (``run_code("6 * 7").text == "42"``)."""
        for r in self.results:
            if r.get("is_main_result"):
                return r.get("text/plain")
        return None

    @classmethod
    def from_wire(cls, d: Mapping[str, Any]) -> "CodeExecution":
        return cls(
            context_id=d.get("context_id", ""),
            language=d.get("language", "python"),
            execution_count=d.get("execution_count"),
            results=list(d.get("results") or []),
            stdout=d.get("stdout", ""),
            stderr=d.get("stderr", ""),
            error=d.get("error"),
            truncated=bool(d.get("truncated")),
            duration_ms=d.get("duration_ms", 0),
        )


class ExecDecoder:
    """Turns exec NDJSON events into OutputEvents; keeps order, skips replayed pieces."""

    def __init__(self) -> None:
        self.exec_id = ""
        self.last_seq = 0
        self.errors: List[Dict[str, str]] = []
        self.outcome: Optional[ExecOutcome] = None
        self._dec = {"stdout": codecs.getincrementaldecoder("utf-8")("replace"), "stderr": codecs.getincrementaldecoder("utf-8")("replace")}

    def feed(self, ev: Mapping[str, Any]) -> Optional[OutputEvent]:
        kind = ev.get("type")
        if kind == "started":
            self.exec_id = ev["exec_id"]
        elif kind in ("stdout", "stderr"):
            if ev["seq"] <= self.last_seq:
                return None
            self.last_seq = ev["seq"]
            raw = base64.b64decode(ev["data"])
            return OutputEvent(kind, self._dec[kind].decode(raw), raw, ev["seq"])
        elif kind == "error":
            self.errors.append({"code": ev.get("code", ""), "message": ev.get("message", "")})
        elif kind == "exit":
            self.outcome = ExecOutcome(self.exec_id, ev["status"], ev.get("return_code"), list(self.errors))
        return None


def code_run_body(code: str, language: Optional[str], context: Any, env: Optional[Mapping[str, str]], timeout: Optional[float]) -> Dict[str, Any]:
    context_id = context if isinstance(context, str) or context is None else context["id"]
    return clean({"code": code, "language": None if context_id else language, "context_id": context_id, "env": env, "timeout": timeout})
