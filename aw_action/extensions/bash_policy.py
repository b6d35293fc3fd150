"""Built-in extension: config.json ``tools.bash`` gates the bash tool (``policy/bash.py``).

``tools.bash`` uses gh-aw's spellings (``policy.policy_from_tools_bash``): a list of commands
allows exactly those executables (``"gh"``, ``"git:*"`` any arguments, ``"git status"`` that
prefix), in the policy's restricted form (one simple command of literal words, no wrapper
shells, no environment printers, no executor options such as ``jq env`` or ``gh auth token``);
``true`` or ``"*"`` allows anything; ``false`` or ``[]`` refuses every command. Absent, nothing
changes: bash is unrestricted, as before this key had a meaning (the key is opt-in).

``tools.bash-variables`` names environment variables a restricted command may use as
``"$NAME"`` inside double quotes (``gh issue view "$ISSUE_NUMBER"``); the policy judges the
command with their values, read from the environment the command runs with. A name that holds
a credential is refused when the run starts.

The gate is a ``tool_call`` handler: a refused call never runs, and the model reads the policy's
reason as the call's error result. It applies in workflows too, on top of each step's policy.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from aw_action.agent.events import ToolCallEvent, ToolCallResult
from aw_action.exits import InvocationError
from aw_action.extensions.api import ExtensionAPI, ExtensionContext
from aw_action.policy import BashPolicy, check_command, policy_from_tools_bash
from aw_action.run.config import RunConfig
from aw_action.run.redact import is_secret_name

REFUSED = "bash command refused by config.json tools.bash: {reason}"


def configured_policy(config: RunConfig) -> BashPolicy:
    """The run's bash policy from ``tools.bash``; ``InvocationError`` (exit 2) when malformed."""
    try:
        return policy_from_tools_bash(config.tools.bash)
    except ValueError as exc:
        raise InvocationError(f"config.json tools.bash: {exc}") from None


def variable_names(config: RunConfig) -> list[str]:
    """``tools.bash-variables``, checked: no credential may be spelled into a command."""
    names = list(dict.fromkeys(config.tools.bash_variables))
    for name in names:
        if not name.isidentifier() or not name.isascii():
            raise InvocationError(f"config.json tools.bash-variables: {name!r} is not a variable name")
        if is_secret_name(name):
            raise InvocationError(
                f"config.json tools.bash-variables: {name} holds a credential; commands may never spell it out"
            )
    return names


def variable_values(names: Sequence[str], env: Mapping[str, str]) -> dict[str, str]:
    """Each name's value as the command will see it (unset variables expand to nothing)."""
    return {name: env.get(name, "") for name in names}


class BashPolicyGate:
    def __init__(self, policy: BashPolicy, names: Sequence[str], cwd: str) -> None:
        self.policy = policy
        self.names = list(names)
        self.cwd = cwd

    def on_tool_call(self, event: ToolCallEvent, ctx: ExtensionContext) -> ToolCallResult | None:
        if event.tool_name != "bash":
            return None
        command = event.input.get("command")
        if not isinstance(command, str):
            return ToolCallResult(block=True, reason=REFUSED.format(reason="no command string"))
        tool_ctx = ctx.session.tool_context
        variables = variable_values(self.names, tool_ctx.env)
        decision = check_command(self.policy, command, cwd=str(tool_ctx.cwd or self.cwd), variables=variables)
        if decision.allowed:
            return None
        return ToolCallResult(block=True, reason=REFUSED.format(reason=decision.reason))


def setup(api: ExtensionAPI) -> None:
    policy = configured_policy(api.config)
    names = variable_names(api.config)
    if policy.mode == "unrestricted":
        return
    gate = BashPolicyGate(policy, names, str(api.workspace))
    api.on("tool_call", gate.on_tool_call)
