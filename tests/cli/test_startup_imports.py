"""What a plain run loads before its first request stays small: heavy modules that only some runs
need are imported when used (bench/RESULTS.md measures the start-up; this keeps the rule)."""

from __future__ import annotations

import subprocess
import sys

LOADED_ON_DEMAND = ("jsonschema", "genai_prices", "github", "ruamel", "anthropic", "openai", "mcp", "mcp_types")
"""jsonschema: output-schema and tool-argument checks; genai_prices: once a request is out;
github (PyGithub): the trigger guard, progress comment, apply mode; ruamel: workflow files;
the provider SDKs: when the run's provider is set up (``ai/registry.py``); the MCP SDK: only in a
run that configures ``mcp-servers`` (``extensions/mcp_servers.py``)."""


def test_the_run_path_imports_no_on_demand_module() -> None:
    code = (
        "import sys\n"
        "import aw_action.cli, aw_action.harness.run_files, aw_action.extensions.builtins\n"
        f"print(','.join(m for m in {LOADED_ON_DEMAND!r} if m in sys.modules))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert proc.stdout.strip() == "", f"imported at start-up: {proc.stdout.strip()}"


def test_the_action_entry_imports_no_http_client_until_it_downloads() -> None:
    """httpx is for a download (``continue-from-artifact``) or an AWF question, not every action's start."""
    code = "import sys\nimport aw_action.action\nprint('httpx' in sys.modules)\n"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert proc.stdout.strip() == "False", "aw_action.action imports httpx at start-up"
