"""The run's story for gh-aw's summary: one ``run_story`` record on the JSONL stream, gh-aw mode only.

gh-aw draws the step summary of a behavior-defined engine from its log parser's entries and shows
only the assistant's messages, the tool calls with their results, and the result's turns,
duration, tokens and errors (gh-aw ``actions/setup/js/log_parser_format.cjs``
``generateSummaryLines`` @04ae90f): a ``harness.*`` entry reaches no reader. So the harness says,
in this one record, what a reader must see; the definition's parser (``gh-aw/aw-harness.md``)
turns it into the run's report message and the result's errors:

- why the run stopped and what to change, in the words of whoever started it
  (``explain(result, "gh-aw")``: the ``GH_AW_*`` variable or the config key);
- every budget against its limit, in people's units (``summary_details.budget_rows``, the
  step summary's own table);
- the engine and its version, the session id, the duration in milliseconds (gh-aw rounds
  the result's ``durationMs`` to whole seconds, so a short run would read "0s").

Plain text throughout, redacted by the sink like every record; the parser makes every line of it
inert before gh-aw writes it to the step log.
"""

from __future__ import annotations

from typing import Any

from aw_action.run.explain import explain
from aw_action.run.explanation import plain
from aw_action.run.result import RunResult
from aw_action.sinks.summary_details import budget_rows

ENGINE = "aw-harness"
RECORD = "run_story"


def engine_version() -> str:
    """The installed wheel's version (``unknown`` from a source tree). Read once, at the end."""
    import importlib.metadata

    try:
        return importlib.metadata.version(ENGINE)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def run_story(result: RunResult, session_id: str) -> dict[str, Any]:
    """The ``run_story`` record's fields for ``result``."""
    explanation = explain(result, "gh-aw")
    state = result.state
    rows = budget_rows(state, state.record.limits) if state is not None else []
    return {
        "engine": ENGINE,
        "version": engine_version(),
        "session_id": session_id,
        "conclusion": result.conclusion,
        "stop_reason": result.stop_reason,
        "exit_code": result.exit_code,
        "level": explanation.level,
        "title": explanation.title,
        "why": plain(explanation.why),
        "fix": plain(explanation.fix),
        "duration_ms": state.elapsed_ms if state is not None else 0,
        "budget": [{"budget": label, "used": used, "limit": limit, "percent": pct} for label, used, limit, pct in rows],
    }
