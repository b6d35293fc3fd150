"""Workflow command formatting: every command is one line the runner parses back exactly."""

from __future__ import annotations

from aw_action.github import commands
from tests.github.runner_sim import simulate


def test_annotation_message_with_newlines_stays_one_command() -> None:
    line = commands.command("warning", "first\n::error::injected\r\n100% done", title="a: b, c")
    assert "\n" not in line
    log = simulate(line)
    assert [c.name for c in log.processed] == ["warning"]
    assert log.processed[0].data == "first\n::error::injected\r\n100% done"
    assert log.processed[0].properties == {"title": "a: b, c"}


def test_property_names_are_camel_case_and_none_is_left_out() -> None:
    line = commands.command("error", "m", file="a.py", end_line=3, title=None)
    assert line == "::error file=a.py,endLine=3::m"


def test_multiline_secret_masks_every_line_and_the_whole() -> None:
    lines = commands.mask_commands("line-one-secret\nline-two-secret\n")
    masked = [c.data for c in simulate("\n".join(lines)).named("add-mask")]
    assert masked == ["line-one-secret\nline-two-secret", "line-one-secret", "line-two-secret"]


def test_blank_secret_gives_no_mask_command() -> None:
    assert commands.mask_commands("  \n") == []


def test_stop_tokens_are_fresh_and_resume_only_with_their_own_token() -> None:
    first, second = commands.stop_token(), commands.stop_token()
    assert first != second and len(first) >= 32
    log = simulate(
        "\n".join(
            [
                commands.stop_commands(first),
                "::warning::ignored",
                commands.resume_commands(second),
                "::warning::still ignored",
                commands.resume_commands(first),
                "::warning::processed",
            ]
        )
    )
    assert [c.data for c in log.named("warning")] == ["processed"]
