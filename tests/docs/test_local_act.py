"""docs/local-act.md works on anyone's machine: no paths of one machine, and the smoke commands
run only the legs that pass under act (the ``cancelled`` job cannot: act never signals a step)."""

from __future__ import annotations

import re
from pathlib import Path

from ruamel.yaml import YAML

REPO = Path(__file__).resolve().parents[2]
DOC = (REPO / "docs" / "local-act.md").read_text(encoding="utf-8")


def test_no_machine_specific_paths() -> None:
    for pattern in (r"(?<!/home/runner)/work/", r"/Users/", r"/root/", r"/home/(?!runner/)", r"C:\\\\", r"/mnt/"):
        assert not re.search(pattern, DOC), pattern


def test_smoke_commands_run_only_the_legs_that_pass_under_act() -> None:
    smoke = YAML(typ="safe").load((REPO / ".github" / "workflows" / "smoke.yml").read_text())
    assert "cancelled" in smoke["jobs"]  # the job the doc tells you not to run
    commands = [line for line in DOC.splitlines() if re.match(r"^act .*smoke\.yml", line)]
    assert len(commands) >= 2
    for command in commands:
        assert " -j smoke" in command and "cancelled" not in command, command
    for leg in re.findall(r"--matrix scenario:([\w-]+)", DOC):
        assert leg in {i["scenario"] for i in smoke["jobs"]["smoke"]["strategy"]["matrix"]["include"]}
