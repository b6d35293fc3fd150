"""An in-process run: a real session, runner and chosen built-ins over the scripted provider.

``Rig.records`` collects every harness record (what the JSONL sink would print); ``ManualClock``
lets a test move time by hand.
"""

from __future__ import annotations

import asyncio
import inspect
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aw_action.agent.events import AgentEvent, HarnessEvent
from aw_action.agent.session import AgentSession
from aw_action.agent.tools import AgentTool, ToolContext, ToolResult
from aw_action.ai.faux import FauxProvider
from aw_action.ai.types import AbortSignal, Model, StreamDone
from aw_action.config.environment import apply_environment
from aw_action.extensions.api import ExtensionAPI, ExtensionContext, HostServices
from aw_action.extensions.pi_tools import FunctionTool
from aw_action.extensions.registry import Registry
from aw_action.extensions.runner import ExtensionRunner
from aw_action.run.budget_kinds import resolve_limits
from aw_action.run.config import RunConfig
from aw_action.run.redact import Redactor
from aw_action.run.state import RunState
from aw_action.sinks.jsonl import JsonlSink

Setup = Callable[[ExtensionAPI], Any]
FAUX = Model(id="scripted", provider="faux", api="faux", context_window=128_000, max_output_tokens=16_384)


class ManualClock:
    """Monotonic time that only moves when the test says so."""

    def __init__(self, start: float = 1000.0) -> None:
        self.t = start
        self._changed = asyncio.Event()

    def now(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds
        self._changed.set()

    async def sleep(self, seconds: float) -> None:
        target = self.t + seconds
        while self.t < target:
            self._changed.clear()
            await self._changed.wait()


def echo_tool(name: str = "echo", text: str | Callable[[dict[str, Any]], str] = "ok") -> FunctionTool:
    async def run(call_id: str, args: dict[str, Any], signal: AbortSignal, on_update: Any, ctx: ToolContext) -> Any:
        return ToolResult.text(text(args) if callable(text) else text)

    return FunctionTool(name, f"{name} tool", {"type": "object", "properties": {}}, run)


@dataclass
class Rig:
    session: AgentSession
    runner: ExtensionRunner
    state: RunState
    provider: FauxProvider
    services: HostServices
    records: list[HarnessEvent] = field(default_factory=list)
    events: list[AgentEvent] = field(default_factory=list)

    def named(self, name: str) -> list[dict[str, Any]]:
        return [r.fields for r in self.records if r.name == name]

    async def run(self, prompt: str = "Do the task.") -> str:
        """Run like the harness does; returns the stop reason."""
        await self.runner.emit_named("session_start", None)
        try:
            end = await self.session.prompt(prompt)
        finally:
            await self.runner.emit_named("session_shutdown", None)
        if self.session.abort_reason:
            return self.session.abort_reason
        return "error" if end.error else "completed"


async def make_rig(
    tmp_path: Path,
    script: list[dict[str, Any]],
    setups: Sequence[tuple[str, Setup]],
    *,
    config: dict[str, Any] | None = None,
    tools: Sequence[AgentTool] = (),
    env: dict[str, str] | None = None,
    model: Model = FAUX,
) -> Rig:
    cfg = apply_environment(
        RunConfig.model_validate({"engine": {"model": "faux/scripted"}, **(config or {})}), env or {}
    )
    state = RunState.for_model(model.ref)
    limits = resolve_limits(cfg)
    state.record.publish_limits({name: limit.limit for name, limit in limits.items()})
    provider = FauxProvider(script)
    runner_box: list[ExtensionRunner] = []
    services = HostServices(
        config=cfg,
        model=model,
        state=state,
        env=env or {},
        output_dir=tmp_path,
        workspace=tmp_path,
        registry=Registry(),
        post=lambda e: runner_box[0].post(e),
        redactor=Redactor([]),
        jsonl=JsonlSink(Redactor([]), io.StringIO()),
        config_dir=tmp_path,
        limits=limits,
    )
    runner = ExtensionRunner(services)
    runner_box.append(runner)
    rig_box: list[Rig] = []

    def record(event: Any, ctx: ExtensionContext) -> None:
        rig_box[0].events.append(event)
        if isinstance(event, HarnessEvent):
            rig_box[0].records.append(event)

    for name, setup in [*setups, ("recorder", lambda api: api.on("*", record))]:
        result = setup(ExtensionAPI(name, True, services))
        if inspect.isawaitable(result):
            await result
    session = AgentSession(
        model=model,
        resolve_provider=lambda m: provider,
        tools=tools,
        hooks=runner,
        tool_context=ToolContext(cwd=tmp_path, output_dir=tmp_path),
    )
    runner.bind(session)
    rig = Rig(session, runner, state, provider, services)
    rig_box.append(rig)
    return rig


class PricedFaux(FauxProvider):
    """The scripted provider with a cost per answer (``cost_usd`` in the turn). Its model has no
    catalog price, so a credit budget is held by its critical point only (nothing is planned)."""

    async def stream(self, request: Any, hooks: Any, abort: AbortSignal) -> Any:
        cost = self._turns[0].get("cost_usd", 0.0) if self._turns else 0.0
        async for event in super().stream(request, hooks, abort):
            if isinstance(event, StreamDone):
                event.message.cost_usd = cost
            yield event


async def make_priced_rig(
    tmp_path: Path, script: list[dict[str, Any]], setups: Sequence[tuple[str, Setup]], **kw: Any
) -> Rig:
    rig = await make_rig(tmp_path, script, setups, **kw)
    priced = PricedFaux(script)
    rig.provider = priced
    rig.session._resolve_provider = lambda m: priced  # type: ignore[method-assign]
    return rig
