"""The run's config, resolved once, the same way for every entry point.

An entry point says where its settings come from (``ConfigSources``) and ``resolve_config`` turns
them into one ``ResolvedConfig``:

1. config.json (``ConfigSources.path``; an entry point without one starts from the defaults),
   checked for top-level typos (``document.check_top_level_keys``);
2. the entry point's overrides over it (``Override``: a config path, a value and who set it, e.g.
   the action's ``max-turns`` input, ``--model``, ``AW_HARNESS_MODEL``); then the merged document
   is validated once as ``RunConfig``; an error in an overridden value names its override;
3. the environment (``config/environment.py``): ``GH_AW_LLM_PROVIDER`` qualifies a bare model
   name, gh-aw mode's ``GH_AW_*`` limits tighten the budgets (the stricter wins), a standalone
   run's fallback variables fill budgets the config leaves unset;
4. the settings spec §6.2 fixes (``document.fix_settings``: one warning each);
5. the model, resolved against the catalog once: ``ResolvedConfig.model`` is what the run's
   context, the provider setup and the records use; no other module resolves the name again.

Nothing else sets ``engine.model`` or reads config.json. Every failure is an ``InvocationError``
(exit 2); one about the document or an override is a ``ConfigError`` carrying the field and
the override, so the action can name its input.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from aw_action.ai.catalog import UnknownModelError, resolve_model
from aw_action.ai.types import Model
from aw_action.config.document import ConfigError, check_top_level_keys, fix_settings, read_document, validate
from aw_action.config.environment import apply_environment, qualified_model
from aw_action.lazy_dataclass import dataclass
from aw_action.mcp.config import CONFIG_KEY, check_servers
from aw_action.run.config import RunConfig

MODEL_PATH = ("engine", "model")


class UnknownModel(ConfigError):
    """The catalog does not know the model; ``requested`` is the name as the run asked for it."""

    def __init__(self, requested: str, reason: str, source: str | None) -> None:
        super().__init__("", f"engine.model: {reason}", MODEL_PATH, source)
        self.requested = requested


@dataclass(frozen=True)
class Override:
    """One setting an entry point puts over config.json."""

    path: tuple[str, ...]
    """Keys as config.json spells them (``("harness", "budget", "max-turns")``)."""
    value: Any
    source: str
    """Who set it, as that entry point's users know it: the action's input name, ``--model``,
    ``AW_HARNESS_MODEL``."""
    adds: bool = False
    """It adds a key the document must not have already (an MCP server of the ``mcp-config``
    document): a key already there ends the resolution naming both sources."""


@dataclass(frozen=True)
class ConfigSources:
    """Where one invocation's settings come from."""

    path: Path
    """config.json, or (``file`` false) a stand-in in the folder that relative paths in the
    config resolve from (``harness.faux-script``, ``harness.output-schema``)."""
    file: bool = True
    overrides: tuple[Override, ...] = ()
    missing_model: str | None = None
    """Said instead of the schema's error when no source names a model (how this entry point's
    users set one)."""
    label: str | None = None
    """How errors name the document (default: ``path``)."""

    @property
    def where(self) -> str:
        return self.label or str(self.path)


@dataclass(frozen=True)
class ResolvedConfig:
    """The settings of one run, and its model as the catalog knows it."""

    config: RunConfig
    model: Model
    path: Path
    """``ConfigSources.path``: its folder is where relative paths in the config resolve from."""
    warnings: tuple[str, ...] = ()
    """Settings the harness changed (``document.fix_settings``), to be announced."""


def resolve_config(sources: ConfigSources, env: Mapping[str, str], now_ms: int | None = None) -> ResolvedConfig:
    """The run's config from ``sources`` and ``env`` (see the module docstring)."""
    where = sources.where
    data = read_document(sources.path, where) if sources.file else {}
    check_top_level_keys(data, where)
    for override in sources.overrides:
        _place(data, override, where)
    if sources.missing_model and not _names_model(data):
        raise ConfigError("", sources.missing_model, MODEL_PATH)
    try:
        config = validate(data, where)
    except ConfigError as exc:
        raise ConfigError(where, exc.reason, exc.field, _source_of(exc.field, sources.overrides)) from None
    _check_mcp_servers(config, sources)
    config = apply_environment(config, env, now_ms)
    warnings = tuple(fix_settings(config))
    try:
        model = resolve_model(config.engine.model)
    except UnknownModelError as exc:
        raise UnknownModel(config.engine.model, str(exc), _source_of(MODEL_PATH, sources.overrides)) from None
    return ResolvedConfig(config, model, sources.path, warnings)


def _place(data: dict[str, Any], override: Override, where: str) -> None:
    """Put ``override`` into the raw document, making the objects on its path as needed."""
    node = data
    for depth, key in enumerate(override.path[:-1], 1):
        child = node.setdefault(key, {})
        if not isinstance(child, dict):
            field = override.path[:depth]
            raise ConfigError(where, f"{'.'.join(field)}: expected an object (to set {'.'.join(override.path)})", field)
        node = child
    if override.adds and override.path[-1] in node:
        raise ConfigError(
            where,
            f"{'.'.join(override.path)}: defined both here and in {override.source}; rename one",
            override.path,
            override.source,
        )
    node[override.path[-1]] = override.value


def _check_mcp_servers(config: RunConfig, sources: ConfigSources) -> None:
    """The servers as a whole (``mcp/config.check_servers``: names, the variables each is given),
    naming the server, the key and the override that set it."""
    problem = check_servers(config.mcp_servers, github=config.github_granted())
    if problem is not None:
        field = (CONFIG_KEY, problem.split(".", 1)[0].split(":", 1)[0])
        where = sources.where
        raise ConfigError(where, f"{CONFIG_KEY}.{problem}", field, _source_of(field, sources.overrides))


def _names_model(data: Mapping[str, Any]) -> bool:
    engine = data.get("engine")
    model = engine.get("model") if isinstance(engine, Mapping) else None
    return isinstance(model, str) and bool(model.strip())


def _source_of(field: tuple[str, ...], overrides: tuple[Override, ...]) -> str | None:
    return next((o.source for o in overrides if field[: len(o.path)] == o.path), None)


def switch_model(name: str, env: Mapping[str, str]) -> Model:
    """The model a run switches to (``ctx.set_model``), named as config.json names one and
    resolved as the run's own was: qualified by gh-aw's provider hint, then against the catalog.
    ``UnknownModelError`` (with close matches) for a name the catalog does not know."""
    return resolve_model(qualified_model(name, env))
