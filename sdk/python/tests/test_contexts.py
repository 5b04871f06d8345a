"""Contexts, as the CLI and the TypeScript SDK have them: BOX_CONTEXT, else the current context
of ``~/.box-desktop/contexts.json`` (written here by the real CLI, ``box context add``, which
pins the certificate), with the pinned fingerprint enforced over HTTPS. The service on HTTPS is
the second one scripts/python-sdk.ts starts (BOX_TLS_URL, its own made certificate)."""

import json
import os
import subprocess

import pytest

from box_desktop import AsyncClient, BoxError, BoxTlsPinError, Client, resolve_config


@pytest.fixture(scope="module")
def tls_service():
    names = ["BOX_TLS_URL", "BOX_TLS_KEY", "BOX_TLS_FINGERPRINT", "BOX_NODE", "BOX_ROOT"]
    missing = [n for n in names if not os.environ.get(n)]
    if missing:
        pytest.fail(f"{', '.join(missing)} must be set (scripts/python-sdk.ts starts the HTTPS service)")
    return {n: os.environ[n] for n in names}


@pytest.fixture()
def home(tmp_path, tls_service):
    """A HOME whose contexts file the real CLI wrote: context ``tls`` pins the HTTPS service."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("BOX_")}
    env.update(HOME=str(tmp_path), BOX_DATA_DIR="/nonexistent-box-data-dir")
    r = subprocess.run(
        [tls_service["BOX_NODE"], os.path.join(tls_service["BOX_ROOT"], "bin", "box.mjs"), "context", "add", "tls", tls_service["BOX_TLS_URL"], "--yes"],
        input=tls_service["BOX_TLS_KEY"] + "\n",
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert f"has SHA-256 fingerprint {tls_service['BOX_TLS_FINGERPRINT']}" in r.stderr
    return tmp_path


def contexts_file(home):
    return os.path.join(str(home), ".box-desktop", "contexts.json")


def test_box_context_selects_the_service_its_key_and_its_pin(home, tls_service):
    env = {"HOME": str(home), "BOX_CONTEXT": "tls"}
    cfg = resolve_config(env=env)
    assert cfg.url == tls_service["BOX_TLS_URL"]
    assert cfg.api_key == tls_service["BOX_TLS_KEY"]
    assert cfg.context == "tls"
    assert cfg.tls_fingerprint == tls_service["BOX_TLS_FINGERPRINT"]
    assert cfg.tls_ca and cfg.tls_ca.startswith("-----BEGIN CERTIFICATE-----")
    with Client(env=env) as c:
        me = c.whoami()
        assert me["key_scope"] == "organization"
        assert isinstance(c.boxes.list().data, list)


def test_the_current_context_is_used_and_box_context_local_or_box_url_win(home, tls_service):
    path = contexts_file(home)
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    data["current"] = "tls"
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f)
    assert resolve_config(env={"HOME": str(home)}).url == tls_service["BOX_TLS_URL"]
    assert resolve_config(env={"HOME": str(home)}).url_source.startswith("context tls (")
    # local: the local service (no context), as the CLI does
    local = resolve_config(env={"HOME": str(home), "BOX_CONTEXT": "local", "BOX_URL": "", "BOX_DATA_DIR": str(home / "none")})
    assert local.context is None and local.url == "http://127.0.0.1:8787"
    # BOX_URL wins over the contexts
    assert resolve_config(env={"HOME": str(home), "BOX_URL": "http://127.0.0.1:1"}).url == "http://127.0.0.1:1"
    # an explicit key wins over the context's
    assert resolve_config(api_key="bxk_other", env={"HOME": str(home)}).api_key == "bxk_other"


def test_an_unknown_box_context_names_the_known_ones(home):
    with pytest.raises(BoxError) as e:
        resolve_config(env={"HOME": str(home), "BOX_CONTEXT": "nope"})
    assert "BOX_CONTEXT=nope: no such context (known: tls" in str(e.value)


def _with_wrong_pin(home):
    path = contexts_file(home)
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    wrong = ":".join(["AB"] * 32)
    data["contexts"]["tls"]["tls_fingerprint"] = wrong
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f)
    return wrong


def test_a_certificate_that_is_not_the_pinned_one_is_refused_naming_both(home, tls_service):
    wrong = _with_wrong_pin(home)
    with Client(env={"HOME": str(home), "BOX_CONTEXT": "tls"}, max_retries=0) as c:
        with pytest.raises(BoxTlsPinError) as e:
            c.whoami()
    msg = str(e.value)
    assert f"pinned SHA-256 {wrong}, presented {tls_service['BOX_TLS_FINGERPRINT']}" in msg
    assert "npx box context rm tls" in msg
    assert e.value.presented == tls_service["BOX_TLS_FINGERPRINT"]


def test_the_async_client_pins_too(home, tls_service):
    import asyncio

    async def run():
        async with AsyncClient(env={"HOME": str(home), "BOX_CONTEXT": "tls"}) as c:
            assert (await c.whoami())["key_scope"] == "organization"
        _with_wrong_pin(home)
        async with AsyncClient(env={"HOME": str(home), "BOX_CONTEXT": "tls"}, max_retries=0) as c:
            with pytest.raises(BoxTlsPinError):
                await c.whoami()

    asyncio.run(run())


def test_without_a_pin_the_made_certificate_is_not_trusted(tls_service):
    # BOX_URL alone: no context, no pin; the service's own CA is not a system root
    with Client(url=tls_service["BOX_TLS_URL"], api_key=tls_service["BOX_TLS_KEY"], env={}, max_retries=0) as c:
        with pytest.raises(BoxError) as e:
            c.whoami()
    assert "CERTIFICATE_VERIFY_FAILED" in str(e.value) or "certificate verify failed" in str(e.value)
