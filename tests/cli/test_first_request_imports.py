"""Start stays at the SDK's floor: a run with no MCP server imports, before its first request,
nothing it does not use (issue 36). A real CLI run against the local Anthropic server under
``python -X importtime`` (every import a line on stderr, written as it happens); the server holds
its answer to the first request until the lines up to it are read, so what was imported before
that request is known exactly."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

from tests.conftest import base_env, write_run_files
from tests.servers import anthropic as wire
from tests.servers.wire import ReceivedRequest, Reply, WireServer

NOT_BEFORE_THE_FIRST_REQUEST = (
    "openai",  # another provider's SDK
    "boto3",  # the clouds' SDKs (tests/ai/test_cloud_imports_lazy.py keeps them out of the whole run)
    "botocore",
    "google.auth",
    "azure.",
    "mcp",  # no MCP server is configured
    "jsonschema",  # the first tool call's argument check
    "genai_prices",  # once the request is out
    "github",  # PyGithub: the trigger guard, the progress comment, apply mode
    "ruamel",  # workflow files
    "httpx",  # not the SDKs' client (httpx2): AWF discovery, artifact downloads
    "opentelemetry.sdk",  # spans only with an OTLP endpoint
    "opentelemetry.exporter",
    "aw_action.workflows",  # not a workflow run
    "aw_action.apply_outputs",
    "aw_action.replay",
    "aw_action.report",
    "aw_action.audit",
    "aw_action.safe_outputs",  # no safe-outputs: configured (extensions/builtins.setup_safe_outputs)
    "aw_action.policy",  # no tools.bash policy (extensions/builtins.setup_bash_policy)
    "tree_sitter",
    "aw_action.extensions.progress_comment",  # progress-comment is off (extensions/builtins.setup_progress_comment)
    "aw_action.sinks.progress",
    "aw_action.sinks.summary",  # the step summary: written at the run's end
    "aw_action.sinks.summary_story",
    "aw_action.sinks.invocation_failure",  # a refused invocation's records
    "aw_action.harness.continuation",  # not a continued run (--continue-from)
    "aw_action.sinks.closing",  # the closing line, the run's story, the replay hint: at the run's end
    "aw_action.sinks.gh_aw_story",
    "aw_action.sinks.summary_details",
    "aw_action.sinks.markdown",
    "aw_action.sinks.mermaid",
    "aw_action.run.explain",  # why the run ended: at its end
    "aw_action.run.explanation",
    "aw_action.security.untrusted_text.sanitize",  # text from outside, rendered: at the end
    "aw_action.config.gh_aw_limits",  # gh-aw's limits: a gh-aw run's
    "aw_action.run.result",  # the run's result: at its end, or a refusal's
)
"""Module name prefixes (a trailing dot: that package's modules) a plain anthropic run with no MCP
server, no OTLP endpoint, no workflow, no safe outputs and no bash policy has no use for before its first request."""


def _module(line: str) -> str | None:
    if line.startswith("import time:") and "|" in line:
        name = line.rsplit("|", 1)[1].strip()
        return name if name != "imported package" else None
    return None


def _matches(name: str, prefix: str) -> bool:
    return name.startswith(prefix) if prefix.endswith(".") else name == prefix or name.startswith(prefix + ".")


def test_a_run_imports_nothing_it_does_not_use_before_its_first_request(tmp_path: Path) -> None:
    cfg, prompt = write_run_files(tmp_path, {"engine": {"id": "aw", "model": "claude-sonnet-4.6"}}, "Say hi.")
    lines: list[str] = []
    before: list[str] = []

    def first_reply(request: ReceivedRequest) -> Reply:
        time.sleep(1.0)  # the harness waits for this answer: every line it wrote before is read by now
        before.extend(lines)
        return wire.stream_reply(text="Hi.", use=wire.usage(10, 2))

    with WireServer() as server:
        server.script(first_reply)
        env = base_env(tmp_path, ANTHROPIC_API_KEY="sk-ant-first-request-0000", ANTHROPIC_BASE_URL=server.url)
        argv = [sys.executable, "-X", "importtime", "-m", "aw_action", "--config", str(cfg), "--prompt", str(prompt)]
        proc = subprocess.Popen(
            argv, env=env, cwd=env["GITHUB_WORKSPACE"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
        assert proc.stderr is not None
        stderr = proc.stderr

        def read() -> None:
            for line in stderr:
                lines.append(line)

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        try:
            code = proc.wait(timeout=120)
        finally:
            proc.kill()
        reader.join(10)
    assert code == 0, "".join(lines[-50:])
    imported = {name for line in before if (name := _module(line))}
    assert {"anthropic._client", "aw_action.agent.loop"} <= imported, "the listing works"
    assert sorted(m for m in imported if any(_matches(m, p) for p in NOT_BEFORE_THE_FIRST_REQUEST)) == []
    after = {name for line in lines[len(before) :] if (name := _module(line))}
    assert any(_matches(m, "genai_prices") for m in after), "a module loaded on demand shows up once used"
