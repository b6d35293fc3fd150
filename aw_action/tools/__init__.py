"""The built-in tools every session offers the model: ``bash``, ``read``, ``write``, ``edit``.

They mirror the Pi coding agent's tools (names, parameter schemas, result and error texts),
because models are trained on those. Each module holds one tool; ``truncate`` holds the shared
output limits.
"""

from __future__ import annotations

from aw_action.agent.tools import AgentTool
from aw_action.tools.bash import BashTool
from aw_action.tools.edit import EditTool
from aw_action.tools.read import ReadTool
from aw_action.tools.write import WriteTool

__all__ = ["FILE_WRITERS", "BashTool", "EditTool", "ReadTool", "WriteTool", "builtin_tools"]

FILE_WRITERS = frozenset({"write", "edit"})
"""The tools that write files (a workflow step that grants none gets a read-only file helper;
repair lists the files they wrote)."""


def builtin_tools() -> list[AgentTool]:
    """One fresh instance of each built-in tool, in the order they are advertised."""
    return [BashTool(), ReadTool(), WriteTool(), EditTool()]
