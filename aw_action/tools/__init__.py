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

__all__ = ["BashTool", "EditTool", "ReadTool", "WriteTool", "builtin_tools"]


def builtin_tools() -> list[AgentTool]:
    """One fresh instance of each built-in tool, in the order they are advertised."""
    return [BashTool(), ReadTool(), WriteTool(), EditTool()]
