#!/usr/bin/env python3
"""Pin a release's wheel in the gh-aw engine definition, or check that it is pinned.

``python3 gh-aw/pin_wheel.py --check|--write WHEEL [--definition FILE]``

The definition's install step (``gh-aw/aw-harness.md``, ``pre-agent-steps``) installs aw-harness
only when the wheel's sha256 equals ``pinned_sha256`` and the version ``GH_AW_ENGINE_VERSION``
equals ``pinned_version``; ``engine.version`` sets that variable. This script reads the wheel
(its file name and its ``METADATA`` must agree on name and version), hashes it, and either
checks that the three pins match it (``--check``: exit 1 naming what differs) or rewrites them
(``--write``). Bad input (no such wheel, not aw-harness's, a definition without the pins) exits 2.

Run ``--write`` on the wheel built from the commit you are about to tag, commit, then tag: a
remote import reads the definition at the tag, so the pin must be in the tagged tree. The wheel
does not contain the definition, so pinning does not change the hash. The release workflow
rebuilds the wheel and runs ``--check``; hatchling builds it reproducibly (fixed timestamps and
file modes; ``SOURCE_DATE_EPOCH`` must stay unset, hatchling's default 1580601600 applies), so
the same tree gives the same hash on any machine. Stdlib only: the release job runs it as is.
"""

from __future__ import annotations

import argparse
import email.parser
import hashlib
import re
import sys
import zipfile
from pathlib import Path

DEFINITION = Path(__file__).resolve().with_name("aw-harness.md")
PROJECT = "aw-harness"
WHEEL_NAME = re.compile(r"aw_harness-(?P<version>[0-9][0-9A-Za-z.+!-]*)-py3-none-any\.whl")
PINS = {
    "pinned_version": re.compile(r"^(?P<lead>\s+pinned_version=)(?P<value>\S*)$", re.M),
    "pinned_sha256": re.compile(r"^(?P<lead>\s+pinned_sha256=)(?P<value>\S*)$", re.M),
    "engine.version": re.compile(r'^(?P<lead>  version: ")(?P<value>[^"]*)(?P<tail>")$', re.M),
}


class BadInput(Exception):
    """One line naming the file and what is wrong with it (exit 2)."""


def wheel_facts(path: Path) -> tuple[str, str]:
    """``(version, sha256)`` of an aw-harness wheel whose name and METADATA agree."""
    match = WHEEL_NAME.fullmatch(path.name)
    if match is None:
        raise BadInput(f"{path}: not an aw-harness wheel name (aw_harness-<version>-py3-none-any.whl)")
    version = match["version"]
    try:
        with zipfile.ZipFile(path) as wheel:
            text = wheel.read(f"aw_harness-{version}.dist-info/METADATA").decode("utf-8")
        data = path.read_bytes()
    except (OSError, KeyError, zipfile.BadZipFile) as exc:
        raise BadInput(f"{path}: cannot read the wheel's METADATA ({type(exc).__name__}: {exc})") from None
    metadata = email.parser.Parser().parsestr(text, headersonly=True)
    if (metadata["Name"], metadata["Version"]) != (PROJECT, version):
        found = f"{metadata['Name']} {metadata['Version']}"
        raise BadInput(f"{path}: METADATA says {found}, the file name says {PROJECT} {version}")
    return version, hashlib.sha256(data).hexdigest()


def read_pins(text: str, definition: Path) -> dict[str, str]:
    pins = {}
    for name, pattern in PINS.items():
        found = list(pattern.finditer(text))
        if len(found) != 1:
            raise BadInput(f"{definition}: expected one {name} line, found {len(found)}")
        pins[name] = found[0]["value"]
    return pins


def wanted(version: str, sha256: str) -> dict[str, str]:
    return {"pinned_version": version, "pinned_sha256": sha256, "engine.version": version}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="pin_wheel.py", description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="exit 1 unless the definition pins this wheel")
    mode.add_argument("--write", action="store_true", help="pin this wheel in the definition")
    parser.add_argument("wheel", type=Path)
    parser.add_argument("--definition", type=Path, default=DEFINITION)
    args = parser.parse_args(argv)
    try:
        version, sha256 = wheel_facts(args.wheel)
        try:
            text = args.definition.read_text(encoding="utf-8")
        except OSError as exc:
            raise BadInput(f"{args.definition}: {exc.strerror or exc}") from None
        pins = read_pins(text, args.definition)
    except BadInput as exc:
        print(f"pin_wheel: {exc}", file=sys.stderr)
        return 2
    want = wanted(version, sha256)
    if args.check:
        wrong = [f"{k} is {pins[k]!r}, the wheel needs {v!r}" for k, v in want.items() if pins[k] != v]
        if wrong:
            fix = f"python3 gh-aw/pin_wheel.py --write {args.wheel}, commit, and tag that commit"
            print(f"pin_wheel: {args.definition} does not pin {args.wheel.name}: {'; '.join(wrong)}", file=sys.stderr)
            print(f"  fix: {fix}", file=sys.stderr)
            return 1
        print(f"{args.definition} pins {args.wheel.name} (sha256 {sha256})")
        return 0
    for name, pattern in PINS.items():
        text = pattern.sub(lambda m, v=want[name]: m["lead"] + v + (m.groupdict().get("tail") or ""), text)
    args.definition.write_text(text, encoding="utf-8")
    print(f"{args.definition}: pinned {args.wheel.name} (sha256 {sha256})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
