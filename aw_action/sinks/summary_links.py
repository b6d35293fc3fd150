"""The step summary's records line: where the run's records are, and (in the action) the link to
the artifact they were uploaded as.

The summary is written when the run ends, before the action uploads the artifact, so the line
first names the artifact, then the action amends that one line with its link, or says why there
is none (``amend_records_line``). The line ends with an HTML comment holding the run's random
marker (``Reporting.marker``): the amendment replaces the line that carries it and no other, so
no text in the summary (the answer, a command) can be taken for it.
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


def amend_records_line(path: Path, reporting: Reporting, line: str) -> bool:
    """Replace the records line of this run's summary in ``path`` with ``line`` (the file is
    rewritten in place: the runner reads it when the step ends); False when the file or the
    line is not there. Raises ``OSError``."""
    tag = _tag(reporting)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return False
    lines = text.split("\n")
    found = [i for i, current in enumerate(lines) if current.endswith(tag)]
    if len(found) != 1:
        return False
    lines[found[0]] = line
    path.write_text("\n".join(lines), encoding="utf-8")
    return True
