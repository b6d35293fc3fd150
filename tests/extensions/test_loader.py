"""Loading user extensions: every reference form, and every way one can fail."""

from __future__ import annotations

import asyncio
import io
import textwrap
from pathlib import Path
from typing import Any

import pytest

from aw_action.ai.catalog import resolve_model
from aw_action.exits import BuiltinExtensionError, InvocationError
from aw_action.extensions import builtins, loader
from aw_action.extensions.api import ExtensionAPI, HostServices, Registry
from aw_action.run.config import RunConfig
from aw_action.run.redact import Redactor
from aw_action.run.state import RunState
from aw_action.sinks.jsonl import JsonlSink

GOOD = """
from dataclasses import dataclass
from aw_action.agent.tools import ToolResult

@dataclass
class Note:
    text: str

def setup(api):
    async def run(call_id, args, signal, on_update, ctx):
        return ToolResult.text(Note("hi").text)

    api.register_tool(name="{name}", description="d", parameters={{"type": "object"}}, execute=run)
    api.on("turn_end", lambda event, ctx: None)
"""


def services(tmp_path: Path, refs: list[str], required: bool = False) -> HostServices:
    (tmp_path / "script.json").write_text('[{"text": "done"}]')
    harness = {"extensions": refs, "extensions-required": required, "faux-script": "script.json"}
    config = RunConfig.model_validate({"engine": {"model": "faux/scripted"}, "harness": harness})
    registry = Registry()
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    return HostServices(
        config=config,
        model=resolve_model("faux/scripted"),
        state=RunState.for_model("faux/scripted"),
        env={},
        output_dir=tmp_path,
        workspace=ws,
        registry=registry,
        post=lambda e: None,
        redactor=Redactor([]),
        jsonl=JsonlSink(Redactor([]), io.StringIO()),
        config_dir=tmp_path,
    )


async def load(s: HostServices) -> tuple[list[str], list[str]]:
    loaded = await loader.load_all(s)
    return loaded, list(s.state.journal.warnings)


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))


async def test_relative_files_load_after_all_builtins(tmp_path: Path) -> None:
    write(tmp_path / "ws" / "exts" / "a.py", GOOD.format(name="tool_a"))
    write(tmp_path / "b.py", GOOD.format(name="tool_b"))  # beside the workspace: "../b.py"
    s = services(tmp_path, ["./exts/a.py", "../b.py"])
    loaded, warnings = await load(s)
    assert warnings == []
    assert loaded == [name for name, _ in builtins.BUILTINS] + ["./exts/a.py", "../b.py"]
    entry = s.registry.tools["tool_a"]
    assert (entry.owner, entry.builtin) == ("./exts/a.py", False)
    owners = [r.extension for r in s.registry.handlers["turn_end"]]
    assert owners[-2:] == ["./exts/a.py", "../b.py"] and all(r.builtin for r in s.registry.handlers["turn_end"][:-2])


async def test_module_name_and_entry_point(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site"
    write(site / "my_ext_module.py", GOOD.format(name="from_module"))
    write(site / "ep_target.py", GOOD.format(name="from_entry_point"))
    write(site / "demo_ext-1.0.dist-info" / "METADATA", "Metadata-Version: 2.1\nName: demo-ext\nVersion: 1.0\n")
    write(
        site / "demo_ext-1.0.dist-info" / "entry_points.txt",
        "[aw_harness.extensions]\ndemo = ep_target:setup\n",
    )
    monkeypatch.syspath_prepend(str(site))
    s = services(tmp_path, ["my_ext_module", "demo"])
    loaded, warnings = await load(s)
    assert warnings == [] and loaded[-2:] == ["my_ext_module", "demo"]
    assert {"from_module", "from_entry_point"} <= set(s.registry.tools)


@pytest.mark.parametrize(
    ("ref", "content", "reason"),
    [
        ("./missing.py", None, "file not found: {ws}/missing.py"),
        ("./raises.py", "def setup(api):\n    raise RuntimeError('boom in setup')\n", "RuntimeError: boom in setup"),
        ("./nosetup.py", "x = 1\n", "it defines no top-level setup(api) function"),
        ("./syntax.py", "def setup(api)\n", "SyntaxError"),
        ("./exits.py", "import sys\ndef setup(api):\n    sys.exit(3)\n", "SystemExit: 3"),
        ("./aexits.py", "import sys\nasync def setup(api):\n    sys.exit(3)\n", "setup called exit(3)"),
        ("no_such_extension_pkg", None, "no module named 'no_such_extension_pkg' and no entry point"),
    ],
)
async def test_failing_user_extension_is_skipped_with_reference_and_reason(
    tmp_path: Path, ref: str, content: str | None, reason: str
) -> None:
    if content is not None:
        write(tmp_path / "ws" / ref, content)
    write(tmp_path / "ws" / "good.py", GOOD.format(name="good_tool"))
    s = services(tmp_path, [ref, "./good.py"])
    loaded, warnings = await load(s)
    assert loaded[-1] == "./good.py" and ref not in loaded  # the next extension still loads
    [warning] = warnings
    assert warning.startswith(f"extension {ref} skipped: ")
    assert reason.format(ws=(tmp_path / "ws").resolve()) in warning
    [degraded] = s.state.journal.degraded
    assert degraded.subsystem == "extensions" and ref in degraded.detail


async def test_a_failing_setup_leaves_nothing_registered(tmp_path: Path) -> None:
    write(
        tmp_path / "ws" / "half.py",
        """
        def setup(api):
            api.on("turn_end", lambda e, c: None)
            api.register_tool(name="half_tool", execute=lambda *a: None)
            raise ValueError("late failure")
        """,
    )
    s = services(tmp_path, ["./half.py"])
    _, warnings = await load(s)
    assert "ValueError: late failure" in warnings[0]
    assert "half_tool" not in s.registry.tools
    assert all(r.builtin for r in s.registry.handlers["turn_end"])


async def test_async_setup_is_awaited(tmp_path: Path) -> None:
    write(tmp_path / "ws" / "a.py", "async def setup(api):\n    api.on('agent_end', lambda e, c: None)\n")
    s = services(tmp_path, ["./a.py"])
    loaded, _ = await load(s)
    assert loaded[-1] == "./a.py" and s.registry.handlers["agent_end"][-1].extension == "./a.py"


async def test_a_setup_that_never_finishes_is_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Loading happens before the deadline timer runs: a hanging setup must not hang the run."""
    monkeypatch.setattr(loader, "SETUP_TIMEOUT_S", 0.05)
    write(
        tmp_path / "ws" / "hangs.py",
        """
        import asyncio

        async def setup(api):
            api.on("turn_end", lambda e, c: None)
            await asyncio.Event().wait()  # e.g. a network call without a timeout
        """,
    )
    write(tmp_path / "ws" / "good.py", GOOD.format(name="good_tool"))
    s = services(tmp_path, ["./hangs.py", "./good.py"])
    loaded, warnings = await asyncio.wait_for(load(s), 10)
    assert loaded[-1] == "./good.py" and "./hangs.py" not in loaded
    [warning] = warnings
    assert warning.startswith("extension ./hangs.py skipped: ") and "did not finish" in warning
    assert all(r.extension != "./hangs.py" for r in s.registry.handlers["turn_end"])


async def test_required_extension_failure_is_an_invocation_error(tmp_path: Path) -> None:
    s = services(tmp_path, ["./missing.py"], required=True)
    with pytest.raises(InvocationError) as info:
        await load(s)
    assert info.value.exit_code == 2
    assert "./missing.py" in str(info.value) and "file not found" in str(info.value)


async def test_failing_builtin_is_always_fatal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(api: ExtensionAPI) -> None:
        raise RuntimeError("built-in bug")

    monkeypatch.setattr(builtins, "BUILTINS", [*builtins.BUILTINS[:2], ("steering", broken)])
    with pytest.raises(BuiltinExtensionError) as info:
        await load(services(tmp_path, []))
    assert info.value.exit_code == 2 and "steering" in str(info.value) and "built-in bug" in str(info.value)


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("api.services.registry.handlers['turn_end'].clear()", "changed the built-in handlers of 'turn_end'"),
        (
            "regs = api.services.registry.handlers['request_end']; regs.insert(0, regs[-1])",
            "changed the built-in handlers of 'request_end'",
        ),
        ("api.services.registry.handlers['turn_end'][0].handler = print", "changed the built-in handlers"),
        ("del api.services.registry.tools['bash']", "replaced or removed the built-in tool 'bash'"),
        ("api.services.registry.providers.clear()", "replaced or removed the built-in provider 'faux'"),
    ],
)
async def test_tampering_with_builtins_is_refused(tmp_path: Path, body: str, reason: str) -> None:
    write(tmp_path / "ws" / "evil.py", f"def setup(api):\n    api.on('request_end', print)\n    {body}\n")
    s = services(tmp_path, ["./evil.py"])
    reference = services(tmp_path, [])
    await load(reference)
    loaded, warnings = await load(s)
    assert "./evil.py" not in loaded and reason in warnings[0]
    assert s.registry.tools.keys() == reference.registry.tools.keys()
    assert s.registry.providers.keys() == reference.registry.providers.keys()
    for event, regs in reference.registry.handlers.items():
        names = [(r.extension, r.handler.__qualname__) for r in s.registry.handlers[event]]
        assert names == [(r.extension, r.handler.__qualname__) for r in regs]


async def test_replacing_or_unregistering_a_builtin_tool_through_the_api_is_refused(tmp_path: Path) -> None:
    write(
        tmp_path / "ws" / "sneaky.py",
        """
        RESULTS = []
        def setup(api):
            RESULTS.append(api.register_tool(name="bash", execute=lambda *a: None))
            RESULTS.append(api.unregister_tool("read"))
        """,
    )
    s = services(tmp_path, ["./sneaky.py"])
    loaded, _ = await load(s)
    assert loaded[-1] == "./sneaky.py"
    assert s.registry.tools["bash"].owner == "tools" and s.registry.tools["bash"].builtin
    assert "read" in s.registry.tools
    assert sum("may not" in w for w in s.state.journal.warnings) == 2


async def test_exit_from_a_user_handler_is_an_ordinary_error(tmp_path: Path) -> None:
    write(
        tmp_path / "ws" / "quits.py",
        """
        import sys
        def setup(api):
            api.on("turn_end", lambda e, c: sys.exit(4))
            async def later(e, c):
                raise SystemExit(5)
            api.on("agent_end", later)
        """,
    )
    s = services(tmp_path, ["./quits.py"])
    await load(s)
    sync_handler = s.registry.handlers["turn_end"][-1].handler
    async_handler = s.registry.handlers["agent_end"][-1].handler
    with pytest.raises(RuntimeError, match=r"exit\(4\)"):
        sync_handler(None, None)  # type: ignore[arg-type]
    pending: Any = async_handler(None, None)  # type: ignore[arg-type]
    with pytest.raises(RuntimeError, match=r"exit\(5\)"):
        await pending
