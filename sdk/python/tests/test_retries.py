"""Retries on 429 and 503 against a scripted loopback server."""

import asyncio
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from box_desktop import AsyncClient, Client, RateLimitError, ServiceUnavailableError

APP = {"id": "app_00000000-0000-4000-8000-000000000001", "name": "default", "created_at": "2026-01-01T00:00:00Z"}
BOX = {"box_id": "box_00000000-0000-4000-8000-000000000002", "name": "r", "status": "running"}


def envelope(kind, message):
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


class Scripted:
    def __init__(self, answers):
        self.answers = answers
        self.seen = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def _any(self):
                n = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(n) if n else b""
                outer.seen.append({"path": self.path, "key": self.headers.get("idempotency-key"), "body": body})
                status, headers, payload = outer.answers[min(len(outer.seen) - 1, len(outer.answers) - 1)]
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = _any

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self):
        self.server.shutdown()


def script_create():
    return Scripted(
        [
            (200, {}, APP),
            (503, {"Retry-After": "1"}, envelope("server_error", "busy")),
            (429, {"Retry-After": "0"}, envelope("rate_limit_error", "slow down")),
            (200, {}, BOX),
        ]
    )


def check_create(s, elapsed):
    assert elapsed >= 0.95
    creates = [x for x in s.seen if x["path"] == "/v1/boxes"]
    assert len(creates) == 3
    assert creates[0]["key"] and len({c["key"] for c in creates}) == 1
    assert len({c["body"] for c in creates}) == 1


def test_retry_after_then_same_body_and_key():
    s = script_create()
    with Client(url=s.url, api_key="k", env={}) as c:
        t0 = time.monotonic()
        box = c.boxes.create(name="r")
        assert box.id == BOX["box_id"]
        check_create(s, time.monotonic() - t0)
    s.close()


def test_async_retry_after_then_same_body_and_key():
    s = script_create()

    async def main():
        async with AsyncClient(url=s.url, api_key="k", env={}) as c:
            t0 = time.monotonic()
            box = await c.boxes.create(name="r")
            assert box.id == BOX["box_id"]
            check_create(s, time.monotonic() - t0)

    asyncio.run(main())
    s.close()


def test_429_without_retry_after_is_final_and_retries_end():
    s = Scripted([(429, {}, envelope("rate_limit_error", "at the box limit"))])
    with Client(url=s.url, api_key="k", env={}) as c:
        with pytest.raises(RateLimitError):
            c.whoami()
    assert len(s.seen) == 1
    s.close()
    t = Scripted([(503, {"Retry-After": "0"}, envelope("server_error", "down"))])
    with Client(url=t.url, api_key="k", env={}, max_retries=2) as c:
        with pytest.raises(ServiceUnavailableError) as e:
            c.whoami()
    assert (e.value.status, e.value.retry_after, e.value.message) == (503, 0, "down")
    assert len(t.seen) == 3
    t.close()
