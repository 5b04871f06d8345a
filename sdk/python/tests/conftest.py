"""The tests run against a real service: BOX_URL and BOX_API_KEY name it (sdk/python/tests/run.ts
starts one and runs pytest)."""

import os

import pytest

from box_desktop import Client


@pytest.fixture(scope="session")
def service():
    url, key = os.environ.get("BOX_URL"), os.environ.get("BOX_API_KEY")
    if not url or not key:
        pytest.fail("BOX_URL and BOX_API_KEY must name a running service (sdk/python/tests/run.ts starts one)")
    return url, key


@pytest.fixture(scope="session")
def client(service):
    c = Client(url=service[0], api_key=service[1], env={})
    yield c
    c.close()
