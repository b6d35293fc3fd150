"""Loading a workflow file fails closed with ``file:line: path: message``, one line, first problem.

Cases follow seed 004's loader rules (strict YAML 1.2: duplicate keys, merge keys, several
documents, non-1.2 directives, tags, alias expansion; unknown properties; unsafe prompt paths;
unknown prompt variables) plus the hostile files a careless user or an attacker would write
(FIFOs, huge files, invalid UTF-8, symlinks out of the folder, deep nesting, non-finite numbers).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from aw_action.workflows import LoadedWorkflow, WorkflowLoadError, load_workflow
from aw_action.workflows.loader import MAX_WORKFLOW_BYTES
from aw_action.workflows.prompts import MAX_PROMPT_FILE_BYTES
from tests.workflows.support import FIX_WORKFLOW, write_workflow

MINIMAL = """\
version: 1
id: mini
command: mini
description: One step
start: only
steps:
  only:
    prompt: Do it for {{workflow.input}}.
    transitions:
      done: $done
"""


def _load_error(tmp_path: Path, text: str, files: dict[str, str] | None = None) -> WorkflowLoadError:
    path = write_workflow(tmp_path, text, name="w.yml", files=files)
    with pytest.raises(WorkflowLoadError) as info:
        load_workflow(path)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(str(path))
    return info.value


def test_given_a_valid_workflow_when_loaded_then_defaults_prompts_and_digests_are_set(tmp_path: Path) -> None:
    loaded = load_workflow(write_workflow(tmp_path))
    definition = loaded.definition
    assert definition.start == "inspect" and definition.max_step_visits == 3
    assert definition.summary_max_chars == 4000
    assert definition.title_of("inspect") == "Inspect the request" and definition.title_of("plan") == "plan"
    assert "Feedback: {{gate.feedback}}" in loaded.prompts["plan"]
    assert definition.steps["inspect"].permissions.bash.mode == "read-only"
    assert definition.steps["plan"].outcomes() == ["blocked", "submit"]
    assert loaded.digest.startswith("sha256:") and set(loaded.step_digests) == set(definition.steps)


def test_given_minimal_workflow_then_max_step_visits_defaults_to_five(tmp_path: Path) -> None:
    definition = load_workflow(write_workflow(tmp_path, MINIMAL)).definition
    assert definition.max_step_visits == 5
    assert definition.steps["only"].permissions.bash.mode == "deny"


def test_given_a_prompt_file_changes_then_only_that_steps_digest_changes(tmp_path: Path) -> None:
    before = load_workflow(write_workflow(tmp_path))
    (tmp_path / "prompts" / "plan.md").write_text("A new plan prompt for {{workflow.input}}.")
    after = load_workflow(tmp_path / "fix.workflow.yml")
    changed = {s for s in before.step_digests if before.step_digests[s] != after.step_digests[s]}
    assert changed == {"plan"} and before.digest != after.digest


def test_given_a_json_document_then_it_loads_because_json_is_yaml_1_2(tmp_path: Path) -> None:
    text = '{"version": 1, "id": "j", "command": "j", "description": "d", "start": "a",'
    text += ' "steps": {"a": {"prompt": "p", "transitions": {"ok": "$done"}}}}'
    assert load_workflow(write_workflow(tmp_path, text, name="j.json")).definition.id == "j"


# ---- strict YAML ------------------------------------------------------------------------------

YAML_CASES = [
    (
        "duplicate key",
        MINIMAL.replace("start: only\n", "start: only\nstart: only\n"),
        6,
        "(top level)",
        "duplicate key 'start'",
    ),
    (
        "duplicate step",
        MINIMAL + "  only:\n    prompt: x\n    transitions: {done: $done}\n",
        11,
        "steps",
        "duplicate key 'only'",
    ),
    (
        "merge key",
        MINIMAL + "  other:\n    <<: {prompt: x}\n    transitions: {done: $done}\n",
        12,
        "steps.other",
        "merge keys (<<)",
    ),
    ("second document", MINIMAL + "---\nid: other\n", 11, "(top level)", "more than one document"),
    ("YAML 1.1 directive", "%YAML 1.1\n---\n" + MINIMAL, 2, "(top level)", "only YAML 1.2"),
    ("TAG directive", "%TAG !e! tag:example.com,2000:\n---\n" + MINIMAL, 2, "(top level)", "%TAG"),
    (
        "custom tag",
        MINIMAL.replace("description: One step", "description: !secret One step"),
        4,
        "description",
        "tags are not allowed (!secret)",
    ),
    (
        "standard tag",
        MINIMAL.replace("description: One step", "description: !!str One step"),
        4,
        "description",
        "tags are not allowed",
    ),
    (
        "python tag",
        MINIMAL.replace("description: One step", "description: !!python/object:os.system x"),
        4,
        "description",
        "tags are not allowed",
    ),
    (
        "non-string key",
        MINIMAL.replace("      done: $done", "      1: $done"),
        10,
        "steps.only.transitions",
        "keys must be strings",
    ),
    (
        "complex key",
        MINIMAL.replace("      done: $done", "      ? [a]\n      : $done"),
        10,
        "steps.only.transitions",
        "keys must be strings",
    ),
    (
        "non-finite number",
        MINIMAL.replace("start: only", "start: only\nmaxStepVisits: .inf"),
        6,
        "maxStepVisits",
        "non-finite",
    ),
    ("NaN", MINIMAL.replace("start: only", "start: only\nmaxStepVisits: .nan"), 6, "maxStepVisits", "non-finite"),
    ("unclosed flow", MINIMAL.replace("      done: $done", "      done: [$done"), None, "(top level)", ""),
    ("empty file", "", 1, "(top level)", "no YAML document"),
    ("comment only", "# nothing\n", 1, "(top level)", "no YAML document"),
]


@pytest.mark.parametrize(("case", "text", "line", "path", "message"), YAML_CASES, ids=[c[0] for c in YAML_CASES])
def test_given_non_strict_yaml_when_loaded_then_it_fails_closed_with_line_and_path(
    tmp_path: Path, case: str, text: str, line: int | None, path: str, message: str
) -> None:
    error = _load_error(tmp_path, text)
    if line is not None:
        assert error.line == line, str(error)
    assert f": {path}: " in str(error)
    assert message in error.message


def test_given_yaml_1_1_booleans_then_they_stay_strings_as_in_yaml_1_2(tmp_path: Path) -> None:
    text = MINIMAL.replace("      done: $done", "      yes: $done\n      on: $done\n      off: $done")
    outcomes = load_workflow(write_workflow(tmp_path, text)).definition.steps["only"].outcomes()
    assert outcomes == ["yes", "on", "off"]


def test_given_anchors_and_aliases_within_bounds_then_they_expand(tmp_path: Path) -> None:
    text = _in_step(
        "permissions:", "  tools: &tools [read, bash]", "  bash: {mode: read-only}", "requires: {tools: *tools}"
    )
    step = load_workflow(write_workflow(tmp_path, text)).definition.steps["only"]
    assert step.requires.tools == ("read", "bash")


def test_given_an_alias_bomb_then_expansion_stops_at_the_bound(tmp_path: Path) -> None:
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n"
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True):
        bomb += f"{name}: &{name} [{', '.join([f'*{prev}'] * 9)}]\n"
    error = _load_error(tmp_path, MINIMAL + "extra:\n" + "".join("  " + line + "\n" for line in bomb.splitlines()))
    assert "after alias expansion" in error.message


def test_given_too_many_aliases_then_loading_fails(tmp_path: Path) -> None:
    items = ", ".join(["*t"] * 70)
    error = _load_error(tmp_path, MINIMAL + f"x: &t a\ny: [{items}]\n")
    assert "more than 64 aliases" in error.message


def test_given_deep_nesting_then_loading_fails_before_the_schema(tmp_path: Path) -> None:
    error = _load_error(tmp_path, MINIMAL + "deep: " + "[" * 40 + "]" * 40 + "\n")
    assert "nesting deeper than 32" in error.message


def test_given_a_huge_file_then_loading_fails_without_parsing(tmp_path: Path) -> None:
    error = _load_error(tmp_path, MINIMAL + "#" * (MAX_WORKFLOW_BYTES + 1))
    assert "larger than" in error.message


def test_given_invalid_utf8_then_loading_fails_naming_the_byte(tmp_path: Path) -> None:
    path = tmp_path / "w.yml"
    path.write_bytes(MINIMAL.encode() + b"# \xff\xfe\n")
    with pytest.raises(WorkflowLoadError, match=r"not UTF-8 text \(byte"):
        load_workflow(path)


def test_given_a_utf8_bom_then_the_file_loads(tmp_path: Path) -> None:
    path = tmp_path / "w.yml"
    path.write_bytes(b"\xef\xbb\xbf" + MINIMAL.encode())
    assert load_workflow(path).definition.id == "mini"


def test_given_a_fifo_then_loading_fails_instead_of_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "w.yml"
    os.mkfifo(fifo)
    with pytest.raises(WorkflowLoadError, match="not a regular file"):
        load_workflow(fifo)


def test_given_a_missing_file_then_the_error_names_it(tmp_path: Path) -> None:
    with pytest.raises(WorkflowLoadError, match=r"nope\.yml: \(top level\): cannot open"):
        load_workflow(tmp_path / "nope.yml")


# ---- schema -----------------------------------------------------------------------------------


def _top(line: str) -> str:
    """MINIMAL with ``line`` added after ``start``."""
    return MINIMAL.replace("start: only\n", f"start: only\n{line}\n")


def _in_step(*lines: str) -> str:
    """MINIMAL with ``lines`` (indented as step fields) before the step's transitions."""
    return MINIMAL.replace("    transitions:", "".join(f"    {line}\n" for line in lines) + "    transitions:")


_PROMPT = "prompt: Do it for {{workflow.input}}."
_BOTH = "{executable: git, argsPrefix: [a], argsPrefixes: [[b]]}"
_GATE = "gate: {submitOutcome: s, approvedOutcome: a, rejectedOutcome: r, timeoutMs: 5000}"

SCHEMA_CASES = [
    ("unknown top-level property", MINIMAL + "owner: me\n", 11, "(top level)", "unknown property 'owner'"),
    (
        "unknown bash property",
        _in_step("permissions:", "  tools: [bash]", "  bash:", "    mode: deny", "    foo: 1"),
        13,
        "steps.only.permissions.bash",
        "unknown property 'foo'",
    ),
    ("missing start", MINIMAL.replace("start: only\n", ""), 1, "(top level)", "missing required property 'start'"),
    ("wrong version", MINIMAL.replace("version: 1", "version: 2"), 1, "version", "must be one of 1"),
    ("bad step id", MINIMAL.replace("  only:", "  Only:"), 7, "steps", "not an identifier"),
    ("bad start", MINIMAL.replace("start: only", "start: Only"), 5, "start", "not an identifier"),
    ("bad target", MINIMAL.replace("done: $done", "done: $finish"), 10, "steps.only.transitions.done", "not a step"),
    ("visits too high", _top("maxStepVisits: 101"), 6, "maxStepVisits", "101"),
    ("summary too short", _top("summaryMaxChars: 10"), 6, "summaryMaxChars", "10"),
    ("empty prompt", MINIMAL.replace(_PROMPT, "prompt: ''"), 8, "steps.only.prompt", "non-empty"),
    (
        "absolute prompt file",
        MINIMAL.replace(_PROMPT, "prompt: {file: /etc/passwd}"),
        8,
        "steps.only.prompt.file",
        "relative path",
    ),
    (
        "both prefix forms",
        _in_step(
            "permissions:", "  tools: [bash]", "  bash:", "    mode: allow-list", "    allow:", f"      - {_BOTH}"
        ),
        14,
        "steps.only.permissions.bash.allow[0]",
        "mutually exclusive",
    ),
    (
        "allow-list without rules",
        _in_step("permissions:", "  tools: [bash]", "  bash: {mode: allow-list}"),
        11,
        "steps.only.permissions.bash",
        "missing required property 'allow'",
    ),
    (
        "no transitions",
        MINIMAL.replace("    transitions:\n      done: $done\n", "    transitions: {}\n"),
        9,
        "steps.only.transitions",
        "non-empty",
    ),
    ("timeout on prompt gate", _in_step(_GATE), 9, "steps.only.gate", "only valid with provider 'plannotator'"),
]


@pytest.mark.parametrize(("case", "text", "line", "path", "message"), SCHEMA_CASES, ids=[c[0] for c in SCHEMA_CASES])
def test_given_a_schema_violation_when_loaded_then_the_error_names_line_path_and_problem(
    tmp_path: Path, case: str, text: str, line: int, path: str, message: str
) -> None:
    error = _load_error(tmp_path, text)
    assert error.line == line, str(error)
    assert f": {path}: " in str(error), str(error)
    assert message in error.message, str(error)


def test_the_brief_example_error_reads_as_promised(tmp_path: Path) -> None:
    text = FIX_WORKFLOW.replace("      bash: {mode: read-only}", "      bash: {mode: read-only, foo: 1}")
    error = _load_error(tmp_path, text, {"prompts/plan.md": "x"})
    assert re.fullmatch(r".*w\.yml:13: steps\.inspect\.permissions\.bash: unknown property 'foo'", str(error))


# ---- prompts ----------------------------------------------------------------------------------


def _with_prompt_file(relative: str) -> str:
    return MINIMAL.replace("prompt: Do it for {{workflow.input}}.", f"prompt: {{file: '{relative}'}}")


def test_given_a_prompt_file_in_a_subfolder_then_it_is_read(tmp_path: Path) -> None:
    loaded = load_workflow(
        write_workflow(tmp_path, _with_prompt_file("p/step.md"), files={"p/step.md": "Hello {{step.id}}"})
    )
    assert loaded.prompts["only"] == "Hello {{step.id}}"


@pytest.mark.parametrize(
    ("relative", "reason"),
    [
        ("../outside.md", "outside the workflow's folder"),
        ("p/../../outside.md", "outside the workflow's folder"),
        ("missing.md", "No such file"),
        ("p", "not a regular file"),
    ],
)
def test_given_a_prompt_file_outside_or_unreadable_then_loading_fails(
    tmp_path: Path, relative: str, reason: str
) -> None:
    (tmp_path / "outside.md").write_text("secret prompt")
    folder = tmp_path / "wf"
    error = _load_error(folder, _with_prompt_file(relative), {"p/x.md": "x"})
    assert error.path == ("steps", "only", "prompt", "file") and error.line == 8
    assert reason in error.message


def test_given_a_symlink_escaping_the_folder_then_loading_fails(tmp_path: Path) -> None:
    (tmp_path / "outside.md").write_text("secret prompt")
    folder = tmp_path / "wf"
    folder.mkdir()
    (folder / "link.md").symlink_to(tmp_path / "outside.md")
    error = _load_error(folder, _with_prompt_file("link.md"))
    assert "resolves outside the workflow's folder" in error.message


def test_given_a_symlink_inside_the_folder_then_it_is_followed(tmp_path: Path) -> None:
    folder = tmp_path / "wf"
    folder.mkdir()
    (folder / "real.md").write_text("Real prompt")
    (folder / "link.md").symlink_to("real.md")
    assert load_workflow(write_workflow(folder, _with_prompt_file("link.md"))).prompts["only"] == "Real prompt"


def test_given_a_prompt_fifo_huge_file_or_binary_then_loading_fails(tmp_path: Path) -> None:
    folder = tmp_path / "wf"
    folder.mkdir()
    os.mkfifo(folder / "fifo.md")
    (folder / "big.md").write_text("x" * (MAX_PROMPT_FILE_BYTES + 1))
    (folder / "bin.md").write_bytes(b"\x00\xff\xfe")
    (folder / "empty.md").write_text("  \n")
    for name, reason in [("fifo.md", "not a regular file"), ("big.md", "larger than"), ("bin.md", "not UTF-8"),
                         ("empty.md", "is empty")]:  # fmt: skip
        error = _load_error(folder, _with_prompt_file(name))
        assert reason in error.message, (name, str(error))


def test_given_an_unknown_inline_variable_then_loading_fails_at_load_time(tmp_path: Path) -> None:
    text = MINIMAL.replace("{{workflow.input}}", "{{workflow.input}} and {{ secrets.token }}")
    error = _load_error(tmp_path, text)
    assert error.path == ("steps", "only", "prompt") and error.line == 8
    assert "unknown prompt variable {{secrets.token}}" in error.message


def test_given_an_unknown_variable_in_a_prompt_file_then_the_file_line_is_named(tmp_path: Path) -> None:
    error = _load_error(
        tmp_path, _with_prompt_file("p.md"), {"p.md": "line one\n\nuse {{last.summary}} and {{env.HOME}}\n"}
    )
    assert "p.md:3: unknown prompt variable {{env.HOME}}" in error.message


def test_every_documented_variable_is_known(tmp_path: Path) -> None:
    names = ["workflow.input", "workflow.id", "run.id", "step.id", "step.title", "last.summary", "gate.feedback",
             "gate.artifact", "reviewed.artifact", "reviewed.feedback"]  # fmt: skip
    body = " ".join("{{%s}}" % n for n in names)  # noqa: UP031
    loaded: LoadedWorkflow = load_workflow(write_workflow(tmp_path, _with_prompt_file("p.md"), files={"p.md": body}))
    assert loaded.prompts["only"] == body
