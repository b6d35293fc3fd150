"""The built-in extensions, in load order (spec §7.1, §8).

provider-setup, cost-tracker, steering, repair, compaction, observability. Compaction is its own
built-in after repair: on ``turn_end`` repair's fixed history is queued first and compaction
builds on it (``compaction.effective_history``); repair calls ``compaction.compact`` to recover
from a context overflow. Observability comes last so that it sees every record the others post.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aw_action.extensions import compaction, cost_tracker, observability, provider_setup, repair, steering
from aw_action.extensions.api import ExtensionAPI

BUILTINS: list[tuple[str, Callable[[ExtensionAPI], Any]]] = [
    ("provider-setup", provider_setup.setup),
    ("cost-tracker", cost_tracker.setup),
    ("steering", steering.setup),
    ("repair", repair.setup),
    ("compaction", compaction.setup),
    ("observability", observability.setup),
]
