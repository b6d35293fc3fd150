"""Workflow command formatting: ``::name key=value,...::message`` lines the runner acts on.

Pure functions, no I/O. Escaping follows the runner's parser (actions/runner ``ActionCommand``,
mirrored by @actions/core ``command.ts``): in the message ``%``, ``\\r`` and ``\\n`` are
percent-encoded; property values additionally encode ``:`` and ``,``. An escaped command is
always exactly one line, so no value can smuggle a second command onto a new line.
"""

from __future__ import annotations

import secrets

from aw_action.run.redact import MIN_SECRET_LENGTH

ANNOTATION_CAP = 10
"""GitHub keeps at most this many annotations of each kind (warning, error, notice) per step."""


def escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def command(name: str, message: str = "", **properties: str | int | None) -> str:
    """One workflow command line (no trailing newline). ``None`` properties are left out;
    ``end_line`` style keyword names are written with camelCase as the runner expects."""
    props = ",".join(
        f"{_camel(key)}={escape_property(str(value))}" for key, value in properties.items() if value is not None
    )
    head = f"::{name} {props}" if props else f"::{name}"
    return f"{head}::{escape_data(message)}"


def _camel(key: str) -> str:
    first, *rest = key.split("_")
    return first + "".join(part.title() for part in rest)


def mask_commands(value: str) -> list[str]:
    """``add-mask`` lines for a secret: the whole value, and each line of a multi-line value
    (the runner masks line by line, so a multi-line secret needs every line registered) that is
    at least ``MIN_SECRET_LENGTH`` long: masking ``==`` or ``}`` would garble the whole log."""
    value = value.strip()
    if not value:
        return []
    parts = [value]
    if "\n" in value or "\r" in value:
        lines = (line.strip() for line in value.replace("\r", "\n").split("\n"))
        parts += [line for line in lines if len(line) >= MIN_SECRET_LENGTH]
    return [command("add-mask", part) for part in dict.fromkeys(parts)]


def stop_token() -> str:
    """A fresh, unguessable ``stop-commands`` token (never a registered command name)."""
    return f"aw-{secrets.token_hex(16)}"


def stop_commands(token: str) -> str:
    """Pauses all command processing until a line ``::<token>::`` arrives."""
    return f"::stop-commands::{token}"


def resume_commands(token: str) -> str:
    return f"::{token}::"
