"""The action's run plan on a fork's pull request: what the harness executes or obeys comes from
the base commit (``fork_guard``), never from the PR head checked out in the workspace.

``ForkFiles.for_event(...)`` is ``None`` unless the event is a PR from another repository. Then:
- ``file(path, input_name)``: a workspace file (the ``config``, the ``prompt-file``) as it is on
  the base commit, copied into a private folder (mode 0700, outside the workspace) the harness
  reads instead; a path outside the workspace is returned unchanged;
- ``pin(config, config_dir)``: the config's path extensions and a path ``output-schema`` point
  at base copies, and its path imports carry the base content inline (inline content, written
  by the compiler, is already the base's: the config itself came from the base); a stdio MCP
  server given secrets is refused (it would run in the fork's checkout).
A file that cannot be taken from the base (the fork added it, the commit is not in a shallow
checkout and the contents API cannot serve it, a symlink) is refused: ``ActionInputError``
naming the input and the path (exit 2), before anything runs. Only the named files come from the
base: an extension that imports a sibling module from the workspace fails to load (a warning,
or exit 2 with ``extensions-required``) rather than running the fork's module.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from aw_action.environment.runner import RunnerFacts
from aw_action.extensions.loader import is_path_reference
from aw_action.github.action_inputs import ActionInputError
from aw_action.github.fork_guard import (
    BaseFiles,
    ForkCheck,
    UntrustedSourceError,
    contents_api_fallback,
    fork_pull_request,
)
from aw_action.run.config import ImportEntry, RunConfig


class ForkFiles:
    def __init__(self, check: ForkCheck, base: BaseFiles) -> None:
        self.check = check
        self.base = base
        self.folder = Path(tempfile.mkdtemp(prefix="aw-harness-base-"))

    @classmethod
    def for_event(
        cls, event_name: str, event: Mapping[str, Any], runner: RunnerFacts, workspace: Path, token: str | None
    ) -> ForkFiles | None:
        check = fork_pull_request(event_name, event)
        if not check.from_fork:
            return None
        if check.base_sha is None:
            raise ActionInputError("config", f"{check.reason}, but the event names no base commit; refusing to run")
        fallback = None
        if token and check.base_repo:
            fallback = contents_api_fallback(runner.api, token, check.base_repo, check.base_sha)
        return cls(check, BaseFiles(workspace, check.base_sha, fallback=fallback))

    def file(self, path: Path, input_name: str) -> Path:
        try:
            return self.base.materialize([path], self.folder)[str(path)]
        except UntrustedSourceError as exc:
            raise ActionInputError(input_name, f"{self.check.reason}; {exc}") from None

    def pin(self, config: RunConfig, config_dir: Path) -> RunConfig:
        """``config_dir``: the folder of the config file as the workspace has it (a relative
        ``output-schema`` is relative to it)."""
        extensions = [self._extension(ref) for ref in config.harness.extensions]
        imports = [self._import(entry) for entry in config.imports]
        schema = config.harness.output_schema
        if isinstance(schema, str) and not schema.strip().startswith("{"):
            schema = str(self.file(config_dir / schema.strip(), "config"))
        harness = config.harness.model_copy(update={"extensions": extensions, "output_schema": schema})
        self._mcp_servers(config)
        return config.model_copy(update={"harness": harness, "imports": imports})

    def _mcp_servers(self, config: RunConfig) -> None:
        """A stdio MCP server given secrets is refused: it would run in the fork's checkout (its
        command, its modules, its working folder), where the fork's code could read them."""
        for name, server in config.mcp_servers.items():
            if server.transport == "stdio" and server.variables():
                raise ActionInputError(
                    "mcp-config",
                    f"{self.check.reason}; mcp-servers.{name}: a stdio server given variables "
                    f"({', '.join(server.variables())}) would run in the fork's checkout; use an HTTP server",
                )

    def _extension(self, ref: str) -> str:
        if not is_path_reference(ref):
            return ref  # an installed module or entry point: not the PR's
        return str(self.file(self.base.workspace / ref, "extensions"))

    def _import(self, entry: ImportEntry | str) -> ImportEntry | str:
        item = ImportEntry(path=entry) if isinstance(entry, str) else entry
        if item.content is not None:
            return entry
        if self.base.relative(item.path) is None:
            return entry
        try:
            data = self.base.read(item.path)
        except UntrustedSourceError as exc:
            raise ActionInputError("imports", f"{self.check.reason}; {exc}") from None
        return ImportEntry(path=item.path, content=data.decode("utf-8", errors="replace"))
