"""The one reader of the event file: bounded (over the bound is an error naming the file)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from aw_action.environment import event_file
from aw_action.environment.event_file import EventFileTooLarge, EventFileUnreadable, read_event_file
from aw_action.environment.runner import RunnerFacts


def test_an_event_is_read_and_what_is_absent_is_empty(tmp_path: Path) -> None:
    good = tmp_path / "event.json"
    good.write_text('{"pull_request": {"number": 3}}')
    assert read_event_file(str(good)) == {"pull_request": {"number": 3}}
    assert read_event_file("") == {} and read_event_file(None) == {}
    assert read_event_file(str(tmp_path / "missing.json")) == {}
    (tmp_path / "list.json").write_text("[1]")
    assert read_event_file(tmp_path / "list.json") == {}


def test_an_event_over_the_bound_is_an_error_naming_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(event_file, "MAX_EVENT_BYTES", 64)
    big = tmp_path / "event.json"
    big.write_text('{"body": "' + "x" * 100 + '"}')
    with pytest.raises(EventFileTooLarge) as caught:
        read_event_file(str(big))
    assert str(big) in str(caught.value) and caught.value.exit_code == 2


@pytest.mark.parametrize(
    "text", ["{not json", '{"n": NaN}', '{"pull_request": {"number": 1e400}}', "[" * 100 + "]" * 100]
)
def test_an_event_that_is_not_strict_json_is_unreadable(tmp_path: Path, text: str) -> None:
    bad = tmp_path / "event.json"
    bad.write_text(text)
    with pytest.raises(EventFileUnreadable, match=r"event\.json"):
        read_event_file(str(bad))


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "event.json"
    os.mkfifo(fifo)
    with pytest.raises(EventFileUnreadable, match="not a regular file"):
        read_event_file(str(fifo))


@pytest.mark.parametrize("where", ["a directory", "/proc/self/mem"])
def test_a_path_that_is_no_readable_file_is_unreadable_not_a_traceback(tmp_path: Path, where: str) -> None:
    """A directory made ``fdopen`` raise before the regular-file check; ``/proc/self/mem``, a
    file by its mode, fails its read with EIO: each an ``OSError`` no caller expected."""
    path = str(tmp_path) if where == "a directory" else where
    with pytest.raises(EventFileUnreadable):
        read_event_file(path)


def test_every_reader_of_the_event_refuses_one_over_the_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from aw_action.apply_outputs.context import ApplyContext
    from aw_action.github.event import TriggerEvent

    monkeypatch.setattr(event_file, "MAX_EVENT_BYTES", 64)
    big = tmp_path / "event.json"
    big.write_text('{"pull_request": {"number": 1, "body": "' + "x" * 100 + '"}}')
    env = {"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": str(big), "GITHUB_REPOSITORY": "o/r"}
    for read in (
        lambda: TriggerEvent.from_runner(RunnerFacts.read(env)),
        lambda: ApplyContext.from_env(env, dry_run=True),
    ):
        with pytest.raises(EventFileTooLarge, match=re.escape(str(big))):
            read()
