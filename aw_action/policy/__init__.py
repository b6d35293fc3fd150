"""Command policies that decide, before anything runs, what an agent may execute.

A leaf package: it imports nothing else from ``aw_action``, so tools, workflows and extensions
can all use it.
"""

from aw_action.policy.bash import (
    BashDecision,
    BashMode,
    BashPolicy,
    BashRule,
    check_command,
    policy_from_tools_bash,
)
from aw_action.policy.shell_words import CommandRejected, parse_argv

__all__ = [
    "BashDecision",
    "BashMode",
    "BashPolicy",
    "BashRule",
    "CommandRejected",
    "check_command",
    "parse_argv",
    "policy_from_tools_bash",
]
