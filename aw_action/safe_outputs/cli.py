"""``aw-harness safe-output KIND [--FIELD VALUE ...]``: record a safe output from bash.

The same records, validation and limits as the agent's tools (counted from the records already
in the file), for a shell-driven agent. KIND is a kind's config key or its record type
(``kinds/``). Fields come as ``--title T --body B``, repeated ``--labels L`` (or a JSON array), ``--FIELD -``
to read that field from stdin, ``--json '{...}'``, or ``.``/``-`` for a JSON object on stdin
(gh-aw's ``safeoutputs`` forms). The config is ``--config``, else ``AW_SAFE_OUTPUTS_CONFIG``,
else the copy beside the records; the output dir is ``--output-dir``, else ``AW_OUTPUT_DIR``.

Exit codes: 0 recorded (one JSON line on stdout), 1 refused (why on stderr), 2 usage or config
error. No GitHub token is read: recording needs none.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from aw_action.environment.runner import MODE_VAR, RunnerFacts
from aw_action.environment.tuning import SAFE_OUTPUTS_CONFIG
from aw_action.run.mode import gh_aw_mode
from aw_action.run.redact import Redactor, secrets_from_env
from aw_action.safe_outputs.config import (
    CONFIG_FILE,
    SafeOutputsConfig,
    SafeOutputsConfigError,
    load_config_file,
    write_config_file,
)
from aw_action.safe_outputs.kinds import BY_TYPE, KINDS
from aw_action.safe_outputs.kinds.base import RequestError
from aw_action.safe_outputs.recorder import Recorder

PROG = "aw-harness safe-output"
USAGE = (
    f"usage: {PROG} KIND [--FIELD VALUE ...] [--json JSON | .] [--config FILE] [--output-dir DIR]\n"
    f"KIND: {', '.join(kind.key for kind in KINDS)}\n"
)


class UsageError(Exception):
    pass


def _json_object(text: str, where: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise UsageError(f"{where}: not valid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise UsageError(f"{where}: must be a JSON object")
    return value


def _labels(raw: str) -> list[Any]:
    """``--labels`` takes one name, or a JSON array of names."""
    stripped = raw.strip()
    if stripped.startswith("[") and stripped.endswith("]"):
        try:
            value = json.loads(stripped)
        except ValueError:
            return [raw]
        return value if isinstance(value, list) else [raw]
    return [raw]


def parse_args(argv: list[str], stdin: Any) -> tuple[str, dict[str, Any], dict[str, str]]:
    """(record type, fields, options) from the command line."""
    if not argv or argv[0].startswith("-"):
        raise UsageError("name a KIND first")
    record_type = argv[0].replace("-", "_")
    if record_type not in BY_TYPE:
        raise UsageError(f"unknown KIND {argv[0]!r}")
    fields: dict[str, Any] = {}
    options: dict[str, str] = {}
    rest = argv[1:]
    i = 0
    while i < len(rest):
        token = rest[i]
        if token in (".", "-"):
            fields.update(_json_object(stdin.read(), "stdin"))
            i += 1
            continue
        if not token.startswith("--") or len(token) == 2:
            raise UsageError(f"unexpected argument {token!r}")
        name, eq, inline = token[2:].partition("=")
        if not eq:
            if i + 1 >= len(rest):
                raise UsageError(f"--{name} needs a value")
            inline, i = rest[i + 1], i + 1
        i += 1
        if name in ("config", "output-dir"):
            options[name] = inline
        elif name == "json":
            fields.update(_json_object(inline, "--json"))
        else:
            key = name.replace("-", "_")
            value = stdin.read() if inline == "-" else inline
            if key == "labels":
                fields["labels"] = [*fields.get("labels", []), *_labels(value)]
            elif key in fields:
                raise UsageError(f"--{name} given twice")
            else:
                fields[key] = value
    return record_type, fields, options


def resolve_config(
    options: Mapping[str, str], env: Mapping[str, str], runner: RunnerFacts, output_dir: Path
) -> SafeOutputsConfig:
    """``--config``, else ``AW_SAFE_OUTPUTS_CONFIG`` (relative to ``GITHUB_WORKSPACE``, so a step can
    name the repository's file whatever folder the agent's shell is in), else the copy beside the
    records (written there when the config came from elsewhere, so the artifact carries it)."""
    beside = output_dir / CONFIG_FILE
    source = Path(options["config"]) if options.get("config") else None
    named = SAFE_OUTPUTS_CONFIG.text(env)
    if source is None and named:
        source = runner.workspace_or(".") / named  # absolute stays absolute
    if source is not None:
        config = load_config_file(source)
        if not beside.exists():
            write_config_file(output_dir, config)
        return config
    if beside.is_file():
        return load_config_file(beside)
    raise UsageError(
        f"no safe-outputs config: pass --config, set {SAFE_OUTPUTS_CONFIG.name}, or run where {beside} exists"
    )


def main(argv: list[str], env: Mapping[str, str] | None = None, stdin: Any = None) -> int:
    environ = dict(os.environ if env is None else env)
    stdin = sys.stdin if stdin is None else stdin
    if argv and argv[0] in ("-h", "--help"):
        sys.stdout.write(USAGE)
        return 0
    if gh_aw_mode(environ):
        sys.stderr.write(f"{PROG}: error: in a gh-aw workflow ({MODE_VAR}=true) use the safeoutputs command\n")
        return 2
    try:
        record_type, fields, options = parse_args(argv, stdin)
        runner = RunnerFacts.read(environ)  # once, for the command
        output_dir = Path(options.get("output-dir") or runner.output_dir)
        config = resolve_config(options, environ, runner, output_dir)
    except (UsageError, SafeOutputsConfigError, OSError) as exc:
        sys.stderr.write(f"{PROG}: error: {exc}\n{USAGE}")
        return 2
    redactor = Redactor(secrets_from_env(environ))
    recorder = Recorder(config, output_dir, Path.cwd(), environ, redactor.text, runner=runner)
    try:
        payload = recorder.record(record_type, fields)
    except RequestError as exc:
        sys.stderr.write(f"{PROG}: refused: {redactor.text(str(exc))}\n")
        return 1
    sys.stdout.write(json.dumps(payload, ensure_ascii=False) + "\n")
    return 0
