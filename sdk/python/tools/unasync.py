"""Writes src/box_desktop/_sync/ from _async/, file by file (as httpcore does): each sync
module is its async one with ``async``/``await`` taken out, so the two keep one surface.
``--check`` fails when a generated file is stale or missing, or when _sync/ holds a file
that no _async/ file makes (the SDK's tests run it); without it, it writes them and
removes such strays.

    /usr/bin/python3 sdk/python/tools/unasync.py [--check] [--package DIR]

``--package`` names another box_desktop directory (the tests use a copy).
"""

import pathlib
import re
import sys
from typing import Dict, List

PKG = pathlib.Path(__file__).resolve().parent.parent / "src" / "box_desktop"

RULES = [
    (r'^"""The asynchronous client\. .*?"""', '"""The synchronous client: GENERATED from _async/ by tools/unasync.py, do not edit."""'),
    (r"\bimport asyncio\b", "import time"),
    (r"\basyncio\.sleep\(", "time.sleep("),
    (r"\bAsync([A-Z]\w*)", r"\1"),
    (r"\basync def ", "def "),
    (r"\basync for ", "for "),
    (r"\basync with ", "with "),
    (r"\bawait ", ""),
    (r"\baclose\b", "close"),
    (r"\baread\(", "read("),
    (r"\baiter_(lines|bytes)\b", r"iter_\1"),
    (r"__a(iter|enter|exit)__", r"__\1__"),
]


def unasync(text: str) -> str:
    for pattern, repl in RULES:
        text = re.sub(pattern, repl, text, flags=re.M | re.S)
    return text


def generate(pkg: pathlib.Path = PKG) -> Dict[pathlib.Path, str]:
    """Each _sync/ file (its path below _sync/) and the text it should hold."""
    out = {}
    for src in sorted((pkg / "_async").rglob("*.py")):
        rel = src.relative_to(pkg / "_async")
        out[rel] = f"# GENERATED from _async/{rel.as_posix()} by tools/unasync.py: do not edit.\n" + unasync(src.read_text())
    return out


def present(pkg: pathlib.Path) -> List[pathlib.Path]:
    """The files in _sync/ (below it), bytecode caches aside."""
    sync = pkg / "_sync"
    if not sync.is_dir():
        return []
    return sorted(p.relative_to(sync) for p in sync.rglob("*") if p.is_file() and "__pycache__" not in p.relative_to(sync).parts)


def problems(pkg: pathlib.Path = PKG) -> List[str]:
    """What is wrong with _sync/: stale or missing generated files, strays."""
    want = generate(pkg)
    sync = pkg / "_sync"
    found = []
    for rel, text in want.items():
        f = sync / rel
        if not f.exists():
            found.append(f"{f} is missing")
        elif f.read_text() != text:
            found.append(f"{f} is stale")
    found += [f"{sync / rel} is made by no file of _async/" for rel in present(pkg) if rel not in want]
    return found


def write(pkg: pathlib.Path = PKG) -> None:
    want = generate(pkg)
    sync = pkg / "_sync"
    for rel in present(pkg):
        if rel not in want:
            (sync / rel).unlink()
    for rel, text in want.items():
        f = sync / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        if not f.exists() or f.read_text() != text:
            f.write_text(text)


if __name__ == "__main__":
    pkg = pathlib.Path(sys.argv[sys.argv.index("--package") + 1]).resolve() if "--package" in sys.argv else PKG
    if "--check" in sys.argv:
        wrong = problems(pkg)
        if wrong:
            sys.exit("\n".join(wrong) + "\nrun /usr/bin/python3 sdk/python/tools/unasync.py")
    else:
        write(pkg)
