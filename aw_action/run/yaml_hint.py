"""A JSON file that is YAML: said as such, with the command that converts it.

gh-aw's frontmatter and workflow files are YAML, so a config written as YAML is an easy mistake;
JSON's own error ("line 1 column 1: Expecting value") does not say what is wrong.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

YAML_SUFFIXES = (".yml", ".yaml")
CONVERT = (
    "import json, sys; from ruamel.yaml import YAML; "
    'json.dump(YAML(typ="safe").load(open(sys.argv[1])), sys.stdout, indent=2, default=str)'
)
"""ruamel.yaml is installed with aw-harness, so the interpreter running it can convert."""


def looks_like_yaml(text: str, path: Path) -> bool:
    """Named ``.yml``/``.yaml``, or a block-style YAML mapping. Text that opens with ``{`` or ``[``
    was meant as JSON (YAML would even take a trailing comma there), and a plain word is YAML too
    but no config: JSON's own message says more about either."""
    if path.suffix.lower() in YAML_SUFFIXES:
        return True
    if text.lstrip("\ufeff \t\r\n").startswith(("{", "[")):
        return False
    from ruamel.yaml import YAML  # only on this error path
    from ruamel.yaml.error import YAMLError

    try:
        data: Any = YAML(typ="safe").load(text)
    except (YAMLError, ValueError, RecursionError):
        return False
    return isinstance(data, dict)


def yaml_hint(text: str, path: Path, what: str) -> str | None:
    """One line for a ``what`` (``config file``) that is YAML where JSON is needed; else None.
    The converted file never overwrites the one it is read from."""
    if not looks_like_yaml(text, path):
        return None
    target = path.with_suffix(".json") if path.suffix.lower() in YAML_SUFFIXES else path.with_suffix(".converted.json")
    file, out = shlex.quote(str(path)), shlex.quote(str(target))
    python = shlex.quote(sys.executable or "python3")
    return (
        f"{what} {path} is YAML, and it must be JSON (config.json is the gh-aw compiler's JSON); convert it with "
        f"yq -o=json {file} > {out}, or {python} -c {shlex.quote(CONVERT)} {file} > {out}"
    )
