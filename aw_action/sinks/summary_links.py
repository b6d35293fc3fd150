"""The step summary's records line: where the run's records are, and (in the action) the link to
the artifact they were uploaded as.

The summary is written when the run ends, before the action uploads the artifact, so the line
first names the artifact, then the action amends that one line with its link, or says why there
is none (``amend_records_line``). The line ends with an HTML comment holding the run's random
marker (``Reporting.marker``): the amendment replaces the line that carries it and no other, so
no text in the summary (the answer, a command) can be taken for it. The commands that replay the
run locally wait the same way, as an unseen placeholder line (``replay_placeholder``), and are
put in only once the artifact is uploaded: a summary never tells the reader to download an
artifact that is not there.
"""

from __future__ import annotations

from pathlib import Path

from aw_action.agent.transcript import FILE_NAME as TRANSCRIPT_FILE
from aw_action.run.record import Reporting
from aw_action.run.result import RESULT_FILE
from aw_action.sinks import markdown as md

TRANSCRIPT = TRANSCRIPT_FILE
"""The transcript's file name (``agent/transcript.py``)."""


def _tag(reporting: Reporting) -> str:
    return f"<!-- aw-harness-records {reporting.marker} -->"


def _holds(session: bool) -> str:
    """What the records hold: the transcript, or for a run that never had a session its result."""
    if session:
        return f"the transcript is {md.code(TRANSCRIPT)} in it"
    return f"the run could not start: it holds {md.code(RESULT_FILE)}, no transcript"


def records_line(reporting: Reporting, folder: Path | None, session: bool = True) -> str:
    """The line as the run writes it: the artifact to come, else the folder on this machine."""
    if reporting.artifact:
        text = f"**Records:** artifact {md.code(reporting.artifact)} (uploaded when the run ends; {_holds(session)})"
    elif folder is not None:
        what = f"the transcript {md.code(TRANSCRIPT)} and the other records are" if session else "the result is"
        text = f"**Records:** {what} in {md.code(str(folder))}"
    else:
        return ""
    return f"{text} {_tag(reporting)}"


def uploaded_line(reporting: Reporting, name: str, url: str | None, session: bool = True) -> str:
    """The line once the artifact is up (``url`` None: uploaded, but its page is not known)."""
    label = f"artifact {md.code(name)}"
    linked = f"[{label}]({url})" if url else label
    return f"**Records:** {linked} ({_holds(session)}) {_tag(reporting)}"


def not_uploaded_line(reporting: Reporting, folder: Path, why: str, session: bool = True) -> str:
    what = f"the transcript {md.code(TRANSCRIPT)} and the run's other records are" if session else "the result is"
    where = f"in {md.code(str(folder))} on the runner"
    return f"**Records:** not uploaded ({md.escape(why)}); {what} {where} {_tag(reporting)}"


def replay_placeholder(reporting: Reporting) -> str:
    """The line that stands, unseen, where the action puts the commands that replay the run once
    its artifact is uploaded (``amend_replay_line``); nothing shows if it never does."""
    return f"<!-- aw-harness-replay {reporting.marker} -->"


def amend_records_line(path: Path, reporting: Reporting, line: str) -> bool:
    """Replace the records line of this run's summary in ``path`` with ``line`` (the file is
    rewritten in place: the runner reads it when the step ends); False when the file or the
    line is not there. Raises ``OSError``."""
    return _amend(path, _tag(reporting), line)


def amend_replay_line(path: Path, reporting: Reporting, block: str) -> bool:
    """Replace this run's replay placeholder with ``block`` (the collapsed commands), or take it
    out when ``block`` is empty; False when the file or the placeholder is not there."""
    return _amend(path, replay_placeholder(reporting), block)


def _amend(path: Path, tag: str, line: str) -> bool:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return False
    lines = text.split("\n")
    found = [i for i, current in enumerate(lines) if current.endswith(tag)]
    if len(found) != 1:
        return False
    if line:
        lines[found[0]] = line
    else:
        blank = found[0] + 1 < len(lines) and not lines[found[0] + 1]
        del lines[found[0] : found[0] + 1 + blank]  # and the blank line that parted it from the next block
    path.write_text("\n".join(lines), encoding="utf-8")
    return True
