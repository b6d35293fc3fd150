"""Graph validation: start, targets, gate contracts, contradictory permissions, reachability and
a path to ``$done`` (pi-workflows' config/validation rules, seed 004 "The loader rejects ...")."""

from __future__ import annotations

from pathlib import Path

import pytest

from aw_action.workflows import WorkflowLoadError, load_workflow
from aw_action.workflows.graph import missing_tools
from tests.workflows.support import write_workflow

HEAD = "version: 1\nid: g\ncommand: g\ndescription: graph\nstart: a\nsteps:\n"


def _steps(**steps: str) -> str:
    body = ""
    for step_id, extra in steps.items():
        body += f"  {step_id}:\n    prompt: do {step_id}\n" + "".join(f"    {line}\n" for line in extra.splitlines())
    return HEAD + body


CASES = [
    ("unknown start", _steps(b="transitions: {ok: $done}"), "start", "unknown step 'a'"),
    ("unknown target", _steps(a="transitions: {ok: b}"), "steps.a.transitions.ok", "unknown target step 'b'"),
    (
        "unreachable step",
        _steps(a="transitions: {ok: $done}", b="transitions: {ok: $done}"),
        "steps.b",
        "step 'b' is unreachable from start 'a'",
    ),
    (
        "cycle without exit",
        _steps(a="transitions: {ok: b, done: $done}", b="transitions: {again: c}", c="transitions: {again: b}"),
        "steps.b",
        "no path of transitions leads from step 'b' to $done",
    ),
    ("pause only", _steps(a="transitions: {blocked: $pause}"), "steps.a", "no path of transitions leads"),
    (
        "gate approved outcome missing",
        _steps(a="gate: {submitOutcome: s, approvedOutcome: ok, rejectedOutcome: no}\ntransitions: {no: a, x: $done}"),
        "steps.a.gate.approvedOutcome",
        "gate outcome 'ok' has no transition",
    ),
    (
        "gate rejected outcome missing",
        _steps(a="gate: {submitOutcome: s, approvedOutcome: ok, rejectedOutcome: no}\ntransitions: {ok: $done}"),
        "steps.a.gate.rejectedOutcome",
        "gate outcome 'no' has no transition",
    ),
    (
        "submit outcome is a transition",
        _steps(a="gate: {submitOutcome: s, approvedOutcome: ok, rejectedOutcome: no}\n"
                 "transitions: {ok: $done, no: a, s: $done}"),
        "steps.a.gate.submitOutcome",
        "decided by the gate",
    ),
    (
        "approved equals rejected",
        _steps(a="gate: {submitOutcome: s, approvedOutcome: ok, rejectedOutcome: ok}\ntransitions: {ok: $done}"),
        "steps.a.gate",
        "must differ",
    ),
    (
        "bash enabled without the bash tool",
        _steps(a="permissions: {tools: [read], bash: {mode: read-only}}\ntransitions: {ok: $done}"),
        "steps.a.permissions.tools",
        "must include 'bash'",
    ),
    (
        "required tool not permitted",
        _steps(a="permissions: {tools: [read]}\nrequires: {tools: [write]}\ntransitions: {ok: $done}"),
        "steps.a.requires.tools",
        "required tool 'write' is not in permissions.tools",
    ),
    (
        "completion tool listed",
        _steps(a="permissions: {tools: [workflow_complete_step]}\ntransitions: {ok: $done}"),
        "steps.a.permissions.tools",
        "added to every step",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("case", "text", "path", "message"), CASES, ids=[c[0] for c in CASES])
def test_given_an_unsound_graph_when_loaded_then_it_fails_naming_the_step(
    tmp_path: Path, case: str, text: str, path: str, message: str
) -> None:
    with pytest.raises(WorkflowLoadError) as info:
        load_workflow(write_workflow(tmp_path, text))
    assert f": {path}: " in str(info.value) and message in info.value.message, str(info.value)
    assert info.value.line is not None


def test_given_loops_with_an_exit_then_the_graph_is_sound(tmp_path: Path) -> None:
    text = _steps(
        a="transitions: {ok: b, blocked: $pause}",
        b="gate: {submitOutcome: s, approvedOutcome: ok, rejectedOutcome: no}\ntransitions: {ok: c, no: b}",
        c="transitions: {retry: c, failed: b, done: $done}",
    )
    assert set(load_workflow(write_workflow(tmp_path, text)).definition.steps) == {"a", "b", "c"}


def test_preflight_names_required_tools_the_session_lacks(tmp_path: Path) -> None:
    text = _steps(
        a="permissions: {tools: [read, grep]}\nrequires: {tools: [read, grep]}\ntransitions: {ok: b}",
        b="transitions: {ok: $done}",
    )
    definition = load_workflow(write_workflow(tmp_path, text)).definition
    assert missing_tools(definition, {"read", "bash", "edit", "write"}) == {"a": ["grep"]}
    assert missing_tools(definition, {"read", "grep"}) == {}
