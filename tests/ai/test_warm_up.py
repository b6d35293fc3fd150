"""The warm-up (``ai/warm_up.py``) imports, once the first request is out, what the turns need and
the first request does not. It swallows a failed import (the module's user reports it where it is
used), so a name that no longer exists would warm nothing without a word: each name is checked
here, in a fresh interpreter, and so is what the warm-up leaves loaded."""

from __future__ import annotations

import subprocess
import sys

from aw_action.ai.warm_up import TURN_MODULES


def test_every_name_the_warm_up_imports_exists() -> None:
    code = "; ".join(f"import {name}" for name in TURN_MODULES)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_the_warm_up_leaves_the_price_catalog_and_the_argument_check_loaded() -> None:
    code = (
        "import sys, threading\n"
        "from aw_action.ai.warm_up import warm_up\n"
        "warm_up(); warm_up()\n"
        "[t.join() for t in threading.enumerate() if t.name == 'aw-warm-up']\n"
        "print(' '.join(sorted(n for n in ('genai_prices.data', 'jsonschema.validators') if n in sys.modules)))\n"
        "print(sum(t.name == 'aw-warm-up' for t in threading.enumerate()))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["genai_prices.data jsonschema.validators", "0"]
