"""No module is imported from the working directory.

``python -m aw_action`` (the container's entrypoint, run in ``/github/workspace``) puts the
current directory first on ``sys.path``. Every module imported lazily after start-up is then
looked up in the checked-out repository first: a file named ``tenacity.py`` or ``openai.py`` in
a pull request would run inside the harness, next to the keys (measured: see
tests/security/test_safe_path.py). ``drop_unsafe_path`` removes that entry; it must run before
anything else is imported (``aw_action/__main__.py`` calls it first). ``PYTHONSAFEPATH=1`` (or
``python -P``) in the image does the same from the interpreter's side.
"""

from __future__ import annotations

import os
import sys


def drop_unsafe_path() -> list[str]:
    """Remove the working directory entries ``-m``/``-c`` prepended; returns what it removed."""
    if sys.flags.safe_path:
        return []
    cwd = os.getcwd()
    removed = [p for p in sys.path[:1] if p in ("", ".", cwd)]
    del sys.path[: len(removed)]
    return removed
