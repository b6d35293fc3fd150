"""Whatever a recording holds, reading it is a recording or a ``RecordingError`` naming the file:
never another exception (property test over hostile lines, the manifest matching them)."""

from __future__ import annotations

import hashlib
import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from aw_action.replay.recording import Recording, load_recording
from aw_action.replay.source import RecordingError

SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.text(max_size=8))
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
HEADER = {
    "type": "header",
    "format": 1,
    "harness": "0.1.0",
    "session_id": "s",
    "config": {"engine": {"model": "faux/x"}},
}
LINES = st.one_of(
    st.text(max_size=30),
    VALUES.map(json.dumps),
    st.fixed_dictionaries(
        {"type": st.sampled_from(["header", "reply", "end", "message"])},
        optional={"message": VALUES, "format": VALUES, "turn": VALUES},
    ).map(json.dumps),
    st.just(json.dumps(HEADER)),
    st.just(json.dumps({"type": "end", "stop_reason": "completed", "turns": 0, "requests": 0})),
    st.just(json.dumps({"type": "message", "message": {"role": "user", "content": [{"type": "text", "text": "x"}]}})),
)


def write(folder: Path, files: dict[str, str]) -> None:
    manifest = ""
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8", errors="surrogatepass")
        manifest += f"{hashlib.sha256((folder / name).read_bytes()).hexdigest()}  {name}\n"
    (folder / "records.sha256").write_text(manifest)


@settings(max_examples=150, deadline=None)
@given(replay=st.lists(LINES, max_size=6), transcript=st.lists(LINES, max_size=6))
def test_hostile_records_are_a_recording_or_a_refusal(replay: list[str], transcript: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        try:
            write(folder, {"replay.jsonl": "\n".join(replay) + "\n", "session.jsonl": "\n".join(transcript) + "\n"})
        except UnicodeEncodeError:
            return
        try:
            result: Any = load_recording(folder)
        except RecordingError as exc:
            assert str(exc) and "\n" not in str(exc)
        else:
            assert isinstance(result, Recording)
