"""What an explanation is made of (``run/explain.py`` writes them): words, not text.

An explanation's sentences are parts: ``Name`` (a setting, file or value typed as written: code
in Markdown), ``Verbatim`` (text from elsewhere, an error message: made inert in Markdown) and
plain strings (the harness's own words). ``plain()`` gives one line for logs;
``sinks/markdown.words`` renders the parts for GitHub. ``budget_setting`` and ``setting_words``
name a setting the way whoever started the run sets it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Literal

from aw_action.environment.tuning import HARNESS_CONFIG
from aw_action.exits import Setting
from aw_action.lazy_dataclass import dataclass
from aw_action.run.budget_kinds import BudgetKind
from aw_action.run.record import Audience
from aw_action.run.result import RunResult
from aw_action.run.state import RunState

Level = Literal["notice", "warning", "error"]


@dataclass(frozen=True)
class Name:
    """A setting, file, command or value as typed: ``code`` in Markdown, itself in plain text."""

    text: str


@dataclass(frozen=True)
class Verbatim:
    """Text the harness did not write (an error message, a provider's words): inert in Markdown."""

    text: str
    model: bool = False
    """The model wrote it or could have shaped it (the schema check of its answer): shown only
    where the model's answer may be (the progress comment without ``progress-comment-answer``
    says where to read it instead)."""


Part = str | Name | Verbatim
Words = tuple[Part, ...]


def plain(words: Words) -> str:
    """The parts as one line of plain text."""
    return " ".join("".join(p if isinstance(p, str) else p.text for p in words).split())


@dataclass(frozen=True)
class Explanation:
    stop_reason: str
    level: Level
    """``notice``: the run did what was asked; ``warning``: it did, with something to look at;
    ``error``: it did not."""
    title: str
    """A few words, the harness's own (``Time limit reached``)."""
    why: Words
    """One sentence: what happened, with the figures."""
    fix: Words = ()
    """One sentence: what to change (empty when nothing can be)."""

    def plain(self) -> str:
        """``Title: why Fix: fix`` on one line."""
        fix = f" Fix: {plain(self.fix)}" if self.fix else ""
        return f"{self.title}: {plain(self.why)}{fix}"


@dataclass(frozen=True)
class Facts:
    """What an explainer reads: the result, its state (None before any session), the audience."""

    result: RunResult
    audience: Audience

    @property
    def state(self) -> RunState | None:
        return self.result.state

    @property
    def limits(self) -> Mapping[str, float]:
        return self.state.record.limits if self.state is not None else {}


Explainer = Callable[[Facts], Explanation]


def budget_setting(kind: BudgetKind, audience: Audience) -> Words:
    """Where ``audience`` sets ``kind``'s limit."""
    if audience == "action":
        return ("the ", Name(kind.action_input), " input")
    if audience == "gh-aw" and kind.gh_aw_env:
        return (Name(kind.gh_aw_env), " (the workflow's limit)")
    where = "config.json" if audience == "cli" else f"the engine's config file ({HARNESS_CONFIG.name})"
    return (Name(kind.config_key), f" in {where}")


def setting_words(setting: Setting) -> Words:
    kinds = {"input": " input", "config": " in the config", "variable": " variable", "file": "", "argument": ""}
    return ("the " if setting.kind in ("input", "variable") else "", Name(setting.name), kinds[setting.kind])
