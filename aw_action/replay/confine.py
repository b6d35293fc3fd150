"""The limits a replay puts on the config a recording names.

A recording is untrusted input: an artifact anyone's run (or anyone's hand) may have made. So
nothing it names may write outside the replay's workspace and output folder, or run with more
privilege than a live run's tool calls:

- the tools' kernel sandbox is at most ``workspace-write``: a recorded ``full`` (named, or implied
  by no or an unrestricted bash policy) becomes ``workspace-write``; ``read-only`` and
  ``workspace-write`` stay as recorded. The sandbox is always required
  (a recorded ``sandbox-required: false`` is not honoured), and a kernel that cannot enforce it
  (no Landlock) refuses the replay: a replayed command never runs unconfined;
- what the harness reads or imports because the config names it stays inside the workspace
  (symbolic links resolved): ``output-schema`` when it names a file (relative to the recorded
  ``config_dir``, which may lie outside), and every ``harness.extensions`` file; an extension
  named otherwise must be an installed entry point of ``aw_harness.extensions``, never a module
  imported by its name. ``faux-script`` is dropped: the replay provider answers, not the faux one;
- what reaches the replayed commands is the replaying job's least: no variable of the job by
  name (a recorded ``tools.pass-env`` is dropped) and no TCP (``sandbox-network`` off, whatever
  was recorded). A recording chose neither for a job whose config it is not (found by review: a
  fork's recording had the replaying job hand its ``DEPLOY_DSN`` to the commands, TCP open).

``confine`` returns the config as the replay runs it and the folder its relative paths resolve
from; a refusal is a ``RecordingError`` naming the recording and the field (exit 2).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from aw_action.exits import InvocationError
from aw_action.extensions.loader import is_entry_point, is_path_reference
from aw_action.harness.sandbox_setup import bash_policy_mode, settings_of
from aw_action.replay.source import RecordingError
from aw_action.run.config import RunConfig
from aw_action.security.confinement.plan import kernel_support

FLOOR = "workspace-write"


def confine(config: RunConfig, config_dir: str, workspace: Path, where: str) -> tuple[RunConfig, Path]:
    """``config`` within the replay's limits (the module docstring) and its folder."""
    root = workspace.resolve()
    folder = (root / config_dir).resolve()
    harness = config.harness
    schema = harness.output_schema
    named = [("harness.output-schema", schema)] if isinstance(schema, str) else []
    for field, text in [*named, *(("harness.extensions", ref) for ref in harness.extensions)]:
        if "\0" in text:
            raise RecordingError(f"{where}: the recorded {field} entry {text[:80]!r} holds a NUL byte")
    if isinstance(schema, str):
        _inside(root, folder / schema, f"{where}: the recorded harness.output-schema {schema[:80]!r}")
    for ref in harness.extensions:
        what = f"{where}: the recorded harness.extensions entry {ref[:80]!r}"
        if is_path_reference(ref):
            _inside(root, root / ref, what)
        elif not is_entry_point(ref):
            raise RecordingError(
                f"{what}: a replay loads an extension from a file in the workspace or an installed "
                "aw_harness.extensions entry point, never a module by its name"
            )
    mode, _ = settings_of(config).resolve([bash_policy_mode(config)])
    update: dict[str, object] = {"sandbox_required": True, "faux_script": None, "sandbox_network": False}
    if mode == "full":
        update.update(sandbox=FLOOR)
    tools = config.tools.model_copy(update={"pass_env": []})
    # a replay starts no MCP server: the recorded results are played back (replay/watch.py)
    confined = {"harness": harness.model_copy(update=update), "tools": tools, "mcp_servers": {}}
    return config.model_copy(update=confined), folder


def check_kernel(env: Mapping[str, str]) -> None:
    """``InvocationError`` when the kernel cannot confine the replay's tool calls."""
    kernel = kernel_support(env)
    if not kernel.landlock_abi:
        raise InvocationError(
            "a replay confines the recorded tool calls to the workspace (Landlock), and this kernel cannot: "
            f"{kernel.note or 'no Landlock'}; replay on Linux 5.13 or later, or in the aw-harness image"
        )


def _inside(root: Path, path: Path, what: str) -> Path:
    resolved = path.resolve()
    if not resolved.is_relative_to(root):
        raise RecordingError(f"{what}: leaves the workspace ({root}); a replay reads nothing outside it")
    return resolved
