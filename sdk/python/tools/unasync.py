"""Writes src/box_desktop/_sync.py from _async.py: the sync Client is the async one with
``async``/``await`` taken out, so the two keep one surface. ``--check`` fails when stale
(the SDK's tests run it).

    /usr/bin/python3 sdk/python/tools/unasync.py [--check]
"""

import pathlib
import re
import sys

PKG = pathlib.Path(__file__).resolve().parent.parent / "src" / "box_desktop"

RULES = [
    (r'^"""The asynchronous client\. .*?"""', '"""The synchronous client: GENERATED from _async.py by tools/unasync.py, do not edit."""'),
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


def generate() -> str:
    text = (PKG / "_async.py").read_text()
    for pattern, repl in RULES:
        text = re.sub(pattern, repl, text, flags=re.M | re.S)
    return text


if __name__ == "__main__":
    out = PKG / "_sync.py"
    text = generate()
    if "--check" in sys.argv:
        if not out.exists() or out.read_text() != text:
            sys.exit(f"{out} is stale: run /usr/bin/python3 sdk/python/tools/unasync.py")
    else:
        out.write_text(text)
