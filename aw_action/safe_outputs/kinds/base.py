"""What a safe-output kind is: the interface every stage calls a kind through.

A kind is one module (``kinds/<type>.py``) holding one ``SafeOutputKind``: its config model,
its tool for the agent, its validation, what the recorder captures for it, its planning and its
applying. The stages (config, tools, recorder, apply job) are generic and look a kind up in the
one table (``kinds/__init__.py``); none of them names a kind.

Layering: the apply stage's GitHub client and sanitiser live above this package
(``apply_outputs/``), so a kind plans through ``Planning`` and applies through ``GitHub``
(``kinds/apply_api.py``), which the apply layer passes in; no kind imports PyGithub.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from pydantic import AliasChoices, BaseModel, ConfigDict, Field

from aw_action.environment.runner import RunnerFacts
from aw_action.lazy_dataclass import dataclass
from aw_action.safe_outputs.kinds.apply_api import Applied, Attachment, GitHub, PlannedItem, Planning
from aw_action.security.confinement.identity import ToolIdentity
from aw_action.security.records.record_guard import RecordWrites

MAX_LIMIT = 100


class RequestError(ValueError):
    """A request that cannot become a record; the message is what the agent reads."""


def kebab(name: str) -> str:
    return name.replace("_", "-")


def max_field(default: int) -> Any:
    """``max``: a positive integer up to ``MAX_LIMIT`` (gh-aw's ``-1`` = unlimited is refused);
    the spec example's ``max-count`` is accepted as an alias."""
    return Field(default=default, ge=1, le=MAX_LIMIT, validation_alias=AliasChoices("max", "max-count"))


class KindConfig(BaseModel):
    """``safe-outputs.<key>``: kebab-case keys, nothing unknown (silently ignoring ``target-repo``
    would act somewhere the author did not mean). Every kind has a ``max``."""

    model_config = ConfigDict(alias_generator=kebab, populate_by_name=True, extra="forbid", frozen=True)

    max: int

    def repository(self) -> str | None:
        """``target-repo``: where this kind's items go; None = the apply job's repository."""
        return None


class Settings(Protocol):
    """The settings of ``safe-outputs:`` that belong to no one kind (``SafeOutputsConfig``)."""

    @property
    def max_patch_size(self) -> int:
        """Largest pull-request patch, in KiB."""
        ...


@dataclass(frozen=True)
class GitUser:
    """Who runs git for a record (a pull request's patch): the tools' user with the tools'
    environment, confined with Landlock up to ``abi`` (``None``: what the kernel offers). The
    default is this process's user and ``Recording.env`` (the ``aw-harness safe-output`` command,
    already a tool)."""

    identity: ToolIdentity | None = None
    env: Mapping[str, str] | None = None
    abi: int | None = None


@dataclass(frozen=True)
class Recording:
    """Where the recorder is writing a record, for a kind that captures more than the arguments."""

    settings: Settings
    output_dir: Path
    workspace: Path
    env: Mapping[str, str]
    git_user: GitUser
    records: RecordWrites | None
    """The run's ledger (in the harness): files are written through its held output dir."""
    runner: RunnerFacts
    """The runner's facts, as the entry point read them (the triggering event a review names)."""


C = TypeVar("C", bound=KindConfig)


class SafeOutputKind(ABC, Generic[C]):
    """One kind. ``name`` is gh-aw's record ``type`` and the agent's tool name (snake_case); the
    config key is the same in kebab-case. ``fields`` are the arguments the agent may give;
    ``system_fields`` the ones the recorder adds itself (refused from the agent, checked when a
    record is read back)."""

    name: ClassVar[str]
    config_model: ClassVar[type[KindConfig]]
    fields: ClassVar[frozenset[str]]
    system_fields: ClassVar[frozenset[str]] = frozenset()

    @property
    def key(self) -> str:
        """The config key, ``safe-outputs.<key>``."""
        return kebab(self.name)

    @abstractmethod
    def tool(self, cfg: C, settings: Settings) -> tuple[str, dict[str, Any]]:
        """(description, JSON schema of the arguments) of the agent's tool, limits included."""

    @abstractmethod
    def validate(self, args: Mapping[str, Any], cfg: C) -> dict[str, Any]:
        """The record's fields from the agent's arguments (none but ``fields`` and the gh-aw
        fields every kind drops, ``validate.IGNORED_FIELDS``); ``FieldError`` names the field to fix."""

    def recorded(self, record: Mapping[str, Any]) -> dict[str, Any]:
        """The ``system_fields`` of a record read back, checked (``FieldError``)."""
        return {}

    def capture(self, record: dict[str, Any], cfg: C, recording: Recording) -> dict[str, Any]:
        """Called under the records lock before ``record`` is appended: add what the record
        needs besides the arguments; returns what the agent reads about it. ``RequestError``
        refuses the request (nothing is recorded)."""
        return {}

    def attachment(self, record: Mapping[str, Any], records_dir: Path, settings: Settings) -> Attachment | None:
        """A file beside the records the apply job needs (its bytes count in the record hash);
        ``RequestError`` refuses the record."""
        return None

    @abstractmethod
    def plan(self, item: PlannedItem, record: Mapping[str, Any], cfg: C, planning: Planning) -> PlannedItem:
        """``item`` (the generic parts: hash, marker, sanitised body) with the kind's own fields;
        ``RequestError`` refuses the record."""

    def gather(self, items: Sequence[PlannedItem], cfg: C | None, planning: Planning) -> dict[int, PlannedItem | str]:
        """After every record is planned: items this kind's items take in (a review gathers its
        comments), as record line -> the item that replaces it, or why that line is refused.
        Called for every kind, configured (``cfg``) or not; the default takes in nothing."""
        return {}

    @abstractmethod
    def apply(self, item: PlannedItem, github: GitHub) -> Applied:
        """Make the item exist on GitHub, at most once (``ApplyError`` or the client's error when
        it cannot)."""
