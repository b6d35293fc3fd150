"""Nothing is imported from the working directory (the checked-out repository).

``python -m`` puts the working directory first on sys.path; in the container that is
/github/workspace, so a repository file named like a dependency the harness imports lazily
would run inside the harness. Measured before the fix: a ``tenacity.py`` in the workspace ran.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import base_env, run_cli, write_run_files

# Top-level modules the harness or its dependencies import lazily during a run.
SHADOWS = (
    "typing",
    "tenacity",
    "openai",
    "anthropic",
    "github",
    "genai_prices",
    "httpx",
    "jsonschema",
    "opentelemetry",
    "yaml",
)


def test_planted_dependency_names_in_the_workspace_never_run(tmp_path: Path) -> None:
    env = base_env(tmp_path)
    workspace = Path(env["GITHUB_WORKSPACE"])
    for name in SHADOWS:
        (workspace / f"{name}.py").write_text(f"open({str(workspace / ('PWNED_' + name))!r}, 'w').write('x')\n")
    c, p = write_run_files(
        tmp_path,
        {"engine": {"id": "aw", "model": "faux/scripted"}},
        script=[{"tool_calls": [{"name": "bash", "arguments": {"command": "echo hi"}}]}, {"text": "done"}],
    )
    run = run_cli(["--config", str(c), "--prompt", str(p)], env, cwd=workspace)
    assert run.returncode == 0, run.stderr
    assert sorted(p.name for p in workspace.glob("PWNED_*")) == []


def test_the_working_directory_entry_is_the_one_removed(tmp_path: Path) -> None:
    code = (
        "import os, sys; before = sys.path[0]; "
        "from aw_action.security.confinement.safe_path import drop_unsafe_path; "
        "print(drop_unsafe_path() == [before] and before == os.getcwd(), os.getcwd() in sys.path)"
    )
    (tmp_path / "probe.py").write_text(code)
    out = subprocess.run(
        [sys.executable, "-m", "probe"], cwd=tmp_path, capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == ["True", "False"]
    safe = subprocess.run(
        [
            sys.executable,
            "-P",
            "-c",
            "from aw_action.security.confinement.safe_path import drop_unsafe_path as d; print(d())",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert safe.stdout.strip() == "[]", "with -P (PYTHONSAFEPATH) there is nothing to remove"
