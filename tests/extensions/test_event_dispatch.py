"""Who receives an event: its own handlers, then the ``*`` ones; a ``*`` handler registered with
``deltas=False`` (observability, narration) is spared the streaming deltas, and a delta nobody
receives is not dispatched at all (``Registry.listeners``, ``SessionHooks.listens``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aw_action.agent.events import MessageEnd, MessageUpdate, ToolExecutionEnd, ToolExecutionUpdate
from aw_action.extensions.api import ExtensionAPI
from aw_action.extensions.registry import Registry
from tests.extensions.rig import echo_tool, make_rig


async def test_a_wildcard_without_deltas_gets_every_event_but_the_deltas(tmp_path: Path) -> None:
    quiet: list[Any] = []
    script = [{"tool_calls": [{"name": "echo", "arguments": {}}]}, {"text": "a long answer, streamed"}]

    def setup(api: ExtensionAPI) -> None:
        api.on("*", lambda event, ctx: quiet.append(event), deltas=False)

    rig = await make_rig(tmp_path, script, [("quiet", setup)], tools=[echo_tool()])
    assert await rig.run() == "completed"

    everything = [type(e) for e in rig.events if not hasattr(e, "name")]  # the rig's own "*" recorder
    assert MessageUpdate in everything
    assert [type(e) for e in quiet if type(e) not in (MessageUpdate, ToolExecutionUpdate)] == [
        t for t in everything if t not in (MessageUpdate, ToolExecutionUpdate)
    ]
    assert not any(isinstance(e, MessageUpdate | ToolExecutionUpdate) for e in quiet)
    assert any(isinstance(e, MessageEnd) for e in quiet) and any(isinstance(e, ToolExecutionEnd) for e in quiet)


def test_a_delta_that_only_wildcards_without_deltas_would_hear_has_no_listener() -> None:
    registry = Registry()
    registry.add_handler("*", "observability", True, lambda event, ctx: None, deltas=False)

    assert registry.listeners("message_update") == [] and registry.listeners("tool_execution_update") == []
    assert [r.extension for r in registry.listeners("turn_end")] == ["observability"]
    assert [r.extension for r in registry.listeners("warning")] == ["observability"]  # harness records too
    registry.add_handler("message_update", "user", False, lambda event, ctx: None)
    assert [r.extension for r in registry.listeners("message_update")] == ["user"]
    assert registry.listeners("tool_execution_update") == []
    registry.add_handler("*", "user", False, lambda event, ctx: None)
    assert [r.extension for r in registry.listeners("message_update")] == ["user", "user"]
    assert [r.extension for r in registry.listeners("turn_end")] == ["observability", "user"]
