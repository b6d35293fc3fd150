"""The built-in extensions, in load order (spec §7.1, §8).

tools (bash, read, write, edit), mcp-servers (the configured MCP servers' tools: docs/mcp.md),
bash-policy (config ``tools.bash``), provider-setup, cost-tracker,
steering, repair, compaction, safe-outputs (the agent's record tools; none in gh-aw mode),
progress-comment (opt-in; before observability, so its last update precedes the run's closing
records), observability, narration (the readable log; after observability, so its lines follow
the records they explain). Compaction is its own
built-in after repair: on ``turn_end`` repair's fixed history is queued first and compaction
builds on it (``compaction.effective_history``); repair calls ``compaction.compact`` to recover
from a context overflow. Observability comes after every built-in that posts records, so that
it sees them all.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aw_action.extensions import (
    compaction,
    cost_tracker,
    mcp_servers,
    narration,
    observability,
    provider_setup,
    repair,
    steering,
)
from aw_action.extensions.api import ExtensionAPI
from aw_action.tools import builtin_tools


def register_builtin_tools(api: ExtensionAPI) -> None:
    """The coding tools every session offers; registered first, so no user extension replaces them."""
    for tool in builtin_tools():
        api.register_tool(tool)


def setup_safe_outputs(api: ExtensionAPI) -> Any:
    """safe-outputs, imported only by a run that configures ``safe-outputs:``: the package and its
    kinds are about 50 ms of a start (bench/PROFILE.md), and with nothing configured the extension
    registers no tool and finds no records to list (``extensions/safe_outputs.py``)."""
    if not api.config.safe_outputs:
        return None
    from aw_action.extensions import safe_outputs

    return safe_outputs.setup(api)


def setup_bash_policy(api: ExtensionAPI) -> Any:
    """bash-policy, imported only by a run that configures ``tools.bash`` or
    ``tools.bash-variables``: the policy engine and its option tables are about 20 ms of a start,
    and with neither configured the policy is unrestricted and there is nothing to check
    (``extensions/bash_policy.py``)."""
    if api.config.tools.bash is None and not api.config.tools.bash_variables:
        return None
    from aw_action.extensions import bash_policy

    return bash_policy.setup(api)


def setup_progress_comment(api: ExtensionAPI) -> Any:
    """progress-comment, imported only by a run that turns it on (``harness.progress-comment``):
    the comment's renderer and the GitHub comment client are about 15 ms of a start, and with it
    off the extension does nothing (``extensions/progress_comment.py``)."""
    if not api.config.harness.progress_comment:
        return None
    from aw_action.extensions import progress_comment

    return progress_comment.setup(api)


BUILTINS: list[tuple[str, Callable[[ExtensionAPI], Any]]] = [
    ("tools", register_builtin_tools),
    ("mcp-servers", mcp_servers.setup),
    ("bash-policy", setup_bash_policy),
    ("provider-setup", provider_setup.setup),
    ("cost-tracker", cost_tracker.setup),
    ("steering", steering.setup),
    ("repair", repair.setup),
    ("compaction", compaction.setup),
    ("safe-outputs", setup_safe_outputs),
    ("progress-comment", setup_progress_comment),
    ("observability", observability.setup),
    ("narration", narration.setup),
]
