import importlib
import os
import pathlib
import shutil
import subprocess
import sys

import box_desktop
from box_desktop import resolve_config

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_sync_client_is_generated_from_the_async_one():
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "unasync.py"), "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def unasync_check(pkg):
    return subprocess.run([sys.executable, str(ROOT / "tools" / "unasync.py"), "--check", "--package", str(pkg)], capture_output=True, text=True)


def test_every_generated_file_is_checked(tmp_path):
    src = ROOT / "src" / "box_desktop"
    modules = sorted(p.name for p in (src / "_async").glob("*.py"))
    assert "client.py" in modules and len(modules) > 10
    assert sorted(p.name for p in (src / "_sync").glob("*.py")) == modules
    pkg = tmp_path / "box_desktop"
    shutil.copytree(src, pkg, ignore=shutil.ignore_patterns("__pycache__"))
    assert unasync_check(pkg).returncode == 0
    (pkg / "_sync" / "__pycache__").mkdir(exist_ok=True)
    (pkg / "_sync" / "__pycache__" / "box.cpython-311.pyc").write_bytes(b"")  # bytecode is no stray
    assert unasync_check(pkg).returncode == 0
    for name in modules:
        f = pkg / "_sync" / name
        text = f.read_text()
        f.write_text(text + "# edited\n")
        r = unasync_check(pkg)
        assert r.returncode != 0 and f"{f} is stale" in r.stderr
        f.unlink()
        r = unasync_check(pkg)
        assert r.returncode != 0 and f"{f} is missing" in r.stderr
        f.write_text(text)
    stray = pkg / "_sync" / "removed.py"
    stray.write_text("")
    r = unasync_check(pkg)
    assert r.returncode != 0 and f"{stray} is made by no file of _async/" in r.stderr
    subprocess.run([sys.executable, str(ROOT / "tools" / "unasync.py"), "--package", str(pkg)], check=True)
    assert not stray.exists() and unasync_check(pkg).returncode == 0


def test_typed_package():
    assert (pathlib.Path(box_desktop.__file__).parent / "py.typed").exists()


def test_installed_with_every_module():
    """The installed package (not the source tree) holds _async/ and _sync/, module by module."""
    installed = pathlib.Path(box_desktop.__file__).parent
    for sub in ("_async", "_sync"):
        mod = importlib.import_module(f"box_desktop.{sub}")
        assert pathlib.Path(mod.__file__).parent == installed / sub
        have = sorted(p.name for p in (installed / sub).glob("*.py"))
        assert have == sorted(p.name for p in (ROOT / "src" / "box_desktop" / "_async").glob("*.py"))


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
