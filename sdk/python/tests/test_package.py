import os
import pathlib
import subprocess
import sys

import box_desktop
from box_desktop import resolve_config

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_sync_client_is_generated_from_the_async_one():
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "unasync.py"), "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_typed_package():
    assert (pathlib.Path(box_desktop.__file__).parent / "py.typed").exists()


def test_finds_the_service_like_the_cli(tmp_path):
    (tmp_path / "api-key").write_text("bxk_file\n")
    assert resolve_config(env={"BOX_URL": "http://h:1/", "BOX_API_KEY": " k "}) == resolve_config(env={"BOX_URL": "http://h:1/", "BOX_API_KEY": " k "})
    c = resolve_config(env={"BOX_URL": "http://h:1/", "BOX_API_KEY": " k "})
    assert (c.url, c.api_key) == ("http://h:1", "k")
    c = resolve_config(env={"BOX_DATA_DIR": str(tmp_path)})
    assert (c.url, c.api_key) == ("http://127.0.0.1:8787", "bxk_file")
    other = tmp_path / "other"
    other.mkdir()
    (other / "api-key").write_text("bxk_other")
    (tmp_path / "endpoint.json").write_text(f'{{"url": "http://127.0.0.1:4321", "data_dir": "{other}", "pid": {os.getpid()}}}')
    c = resolve_config(env={"BOX_DATA_DIR": str(tmp_path)})
    assert (c.url, c.api_key) == ("http://127.0.0.1:4321", "bxk_other")
    (tmp_path / "endpoint.json").write_text(f'{{"url": "http://127.0.0.1:4321", "data_dir": "{other}", "pid": 999999999}}')
    assert resolve_config(env={"BOX_DATA_DIR": str(tmp_path)}).url == "http://127.0.0.1:8787"  # a dead service's file
    assert resolve_config("http://x:2", "key", env={"BOX_DATA_DIR": str(tmp_path)}).api_key == "key"
