"""docs/scripted-provider.md documents every key a script's turn may hold, and its example runs as
the page says, through the installed ``aw-harness``."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO, base_env

DOC = (REPO / "docs" / "scripted-provider.md").read_text(encoding="utf-8")
AW_HARNESS = Path(sys.executable).parent / "aw-harness"


def test_the_key_table_is_exactly_what_the_provider_reads() -> None:
    source = (REPO / "aw_action" / "ai" / "faux.py").read_text()
    read = set(re.findall(r'turn(?:\.get\(|\[)"(\w+)"', source))
    documented = set(re.findall(r"^\| `(\w+)` \|", DOC, re.M))
    assert read and documented == read


def test_the_readme_and_the_examples_point_to_the_page() -> None:
    assert "docs/scripted-provider.md" in (REPO / "README.md").read_text()
    assert "../docs/scripted-provider.md" in (REPO / "examples" / "README.md").read_text()


def test_the_example_script_runs_as_the_page_says(tmp_path: Path) -> None:
    script = json.loads(DOC.split("```json", 1)[1].split("```", 1)[0])
    env = base_env(tmp_path)
    workspace = Path(env["GITHUB_WORKSPACE"])
    (workspace / "script.json").write_text(json.dumps(script))
    config = {"engine": {"model": "faux/scripted"}, "harness": {"faux-script": "script.json"}}
    (workspace / "config.json").write_text(json.dumps(config))
    (workspace / "prompt.txt").write_text("Write a note.\n")
    proc = subprocess.run(
        [str(AW_HARNESS), "--config", "config.json", "--prompt", "prompt.txt"],
        cwd=workspace, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(proc.stdout)
    assert (result["turns"], result["tool_calls"], result["stop_reason"]) == (3, 2, "completed")
    assert result["final_message"] == "Done: note.md is written."
    assert (workspace / "note.md").read_text() == "# Note\n"
