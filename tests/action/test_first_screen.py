"""The step summary's first screen as a person reads it, through the entrypoint as the runner
starts it: a misspelt input is named there with the input it probably meant (the run went on
without it, or could not start for want of it); what the agent could reach is there only where it
is weaker than the defaults, each fact said once; the rest is in the collapsed part."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.action.launch import ActionRun, run_action, write_script


def first_screen(summary: str) -> str:
    """What a person reads first: the summary down to its first section heading."""
    return summary.split("\n### ", 1)[0]


def _run(tmp: Path, inputs: dict[str, str], extra: dict[str, str]) -> ActionRun:
    ws = tmp / "workspace"
    ws.mkdir(parents=True, exist_ok=True)
    script = write_script(ws, [{"text": "Done."}])
    base = {"prompt": "Do it.", "model": "faux/scripted", "upload-artifacts": "false"}
    return run_action(tmp, {**base, **inputs}, {"AW_FAUX_SCRIPT": str(script), **extra})


def test_a_misspelt_input_is_on_the_first_screen_with_the_input_it_meant(tmp_path: Path) -> None:
    run = _run(tmp_path, {}, {"INPUT_MAX-TURN": "3"})
    assert run.returncode == 0, run.stdout[-3000:]
    screen = first_screen(run.summary)
    assert screen.startswith("## ✅ Success · Finished\n")
    assert "> **Ignored input:**" in screen
    assert (
        "> - `max-turn` (`INPUT_MAX-TURN`) is not an input of this action, so it was ignored; did you mean `max-turns`?"
    ) in screen


def test_a_misspelt_key_input_is_named_before_the_missing_key_is_blamed(tmp_path: Path) -> None:
    run = _run(tmp_path, {"model": "anthropic/claude-sonnet-4-5"}, {"INPUT_ANTHROPIC-API-KE": "not-a-real-key"})
    assert run.returncode == 2
    screen = first_screen(run.summary)
    ignored = screen.index("did you mean `anthropic-api-key`?")
    assert "`anthropic-api-ke` (`INPUT_ANTHROPIC-API-KE`) is not an input of this action" in screen
    assert ignored < screen.index("> [!CAUTION]"), "the cause before the provider is blamed"
    assert "not-a-real-key" not in run.summary


def test_no_ignored_input_no_block(tmp_path: Path) -> None:
    run = _run(tmp_path, {"max-turns": "3"}, {})
    assert run.returncode == 0 and "Ignored input" not in run.summary


def test_the_access_note_is_on_the_first_screen_only_where_weaker_and_says_root_once(tmp_path: Path) -> None:
    run = _run(tmp_path, {}, {})
    assert run.returncode == 0, run.stdout[-3000:]
    body, collapsed = run.summary.split("<summary>Agent access</summary>", 1)
    full = collapsed.split("</details>", 1)[0]
    assert "- Sandbox: bash full" in full and "- Processes: " in full, "everything is in the collapsed part"
    assert "Sandbox:" not in body and "Processes:" not in body, "as asked and as the defaults: not on the first screen"
    [processes] = [line for line in full.splitlines() if line.startswith("- Processes: ")]
    if os.geteuid() == 0 and "tools run as root" in full:  # this machine: root, no 'aw-agent' user
        assert "root" not in processes, "the Unprotected line says it"
        assert "> **Agent access, weaker than asked or than the defaults:**" in body
        assert "> - Unprotected: the workspace is root's" in body
    else:
        pytest.skip("the tools are isolated here: nothing is weaker than the defaults")
