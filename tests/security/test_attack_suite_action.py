"""The acceptance test of issue 11 for the container entrypoint, started as the runner starts it
(``tests/action/launch.py``) with the runner's environment: the Actions runtime token and results
URL (a local artifact v4 server), the OIDC request token and URL, the job's GitHub token, provider
keys (one of them multi-line), OTLP headers (a local OTLP receiver) and a credential on the
step's ``env:``. The workspace, ``HOME``, ``RUNNER_TEMP`` and the file commands belong to an
unprivileged user, as on a GitHub runner (uid 1001).

The same hostile model as the CLI test (``tests/security/attacks.py``), plus forging a step
output. No planted secret may appear, in any encoding, in any tool result, request body, log
line, output, summary, record, span or the uploaded artifact; the records stay intact; the forged
output is undone and named.
"""

from __future__ import annotations

import io
import json
import os
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aw_action.security.confinement.identity import ToolIdentity
from tests.action.launch import ActionRun, Paths, action_env, finish, start_action
from tests.conftest import session_tool_texts
from tests.github.artifact_server import ArtifactServer, runtime_token
from tests.security.attacks import attacks, by_command, script
from tests.security.leaks import leaked
from tests.servers.wire import Reply, WireServer
from tests.sinks.otlp_receiver import Receiver, serve

RUNTIME_TOKEN = runtime_token("61", "61")
OIDC_TOKEN = "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.entrypoint.oidc-request"
ANTHROPIC_KEY = "sk-ant-api03-EntrypointPlantedAnthropicKey01234"
OPENAI_KEY = "sk-proj-EntrypointPlantedOpenAIKeyFirstLine\nEntrypointPlantedOpenAIKeySecondLine99"
GITHUB_TOKEN = "ghs_EntrypointPlantedJobToken0123456789"
OTLP_SECRET = "entrypoint-planted-otlp-bearer-0123"
STEP_SECRET = "entrypoint-planted-step-env-secret-42"
SECRETS = [
    RUNTIME_TOKEN,
    OIDC_TOKEN,
    ANTHROPIC_KEY,
    OPENAI_KEY,
    *OPENAI_KEY.splitlines(),
    GITHUB_TOKEN,
    OTLP_SECRET,
    STEP_SECRET,
]
FORGE = 'echo "conclusion=forged" >> "$GITHUB_OUTPUT"; echo "## forged" >> "$GITHUB_STEP_SUMMARY"'


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    yield from serve()


def runner_paths(shared_tmp: Path, user: ToolIdentity) -> Paths:
    paths = Paths.under(shared_tmp / "job")
    for folder in (paths.workspace, paths.home, paths.runner_temp, paths.output_file.parent):
        for path in (folder, *folder.rglob("*")):
            os.chown(path, user.uid, user.gid)
    return paths


def hostile_action(paths: Paths, receiver: Receiver) -> tuple[ActionRun, dict[str, Any]]:
    out = paths.runner_temp / "aw-harness"
    with (
        ArtifactServer(RUNTIME_TOKEN) as artifacts,
        WireServer(default=Reply.json_body({"message": "bad token"}, status=401)) as oidc,
        WireServer() as model,
    ):
        calls = [*attacks(out, f"{oidc.url}/oidc"), ("bash", {"command": FORGE})]
        # a model that got hold of a key some other way repeats each line of the multi-line one
        model.script(*script(calls, final=f"Done. {OPENAI_KEY.splitlines()[1]} and {OPENAI_KEY.splitlines()[0]}"))
        inputs = {
            "prompt": "Summarise the repository.",
            "model": "claude-sonnet-4.6",
            "anthropic-api-key": ANTHROPIC_KEY,
            "openai-api-key": OPENAI_KEY,
            "github-token": GITHUB_TOKEN,
            "otlp-endpoint": receiver.url,
            "otlp-headers": f"Authorization=Bearer%20{OTLP_SECRET}",
        }
        extra = {
            "ACTIONS_RUNTIME_TOKEN": RUNTIME_TOKEN,
            "ACTIONS_RESULTS_URL": artifacts.url + "/",
            "ACTIONS_ID_TOKEN_REQUEST_TOKEN": OIDC_TOKEN,
            "ACTIONS_ID_TOKEN_REQUEST_URL": f"{oidc.url}/oidc",
            "ANTHROPIC_BASE_URL": model.url,
            "MY_SERVICE_TOKEN": STEP_SECRET,
            "PATH": "/usr/bin:/bin",
        }
        started = time.monotonic()
        run = finish(start_action(paths, action_env(paths, inputs, extra)), paths, started, timeout=300)
        seen = {
            "calls": calls,
            "bodies": [r.body.decode(errors="replace") for r in model.requests],
            "oidc": [r.headers.get("authorization", "") for r in oidc.requests],
            "zip": artifacts.uploaded() if artifacts.named("FinalizeArtifact") else b"",
            "out": out,
        }
    return run, seen


@pytest.fixture
def attacked(
    shared_tmp: Path, tool_user: ToolIdentity, receiver: Receiver
) -> tuple[ActionRun, dict[str, Any], Receiver]:
    run, seen = hostile_action(runner_paths(shared_tmp, tool_user), receiver)
    assert run.returncode == 0, run.stdout[-4000:]
    assert len(seen["bodies"]) == len(seen["calls"]) + 1, "every attack ran and went back to the model"
    return run, seen, receiver


def test_no_planted_secret_reaches_anything_the_run_leaves(
    attacked: tuple[ActionRun, dict[str, Any], Receiver],
) -> None:
    run, seen, receiver = attacked
    log = "\n".join(line for line in (run.stdout + run.stderr).splitlines() if not line.startswith("::add-mask::"))
    everything: dict[str, str] = {"log": log, "summary": run.summary, "oidc request": "\n".join(seen["oidc"])}
    everything["outputs"] = json.dumps(run.outputs)
    everything.update({f"request {i}": body for i, body in enumerate(seen["bodies"])})
    for path in sorted(seen["out"].rglob("*")):
        if path.is_file():
            everything[str(path)] = path.read_text(errors="replace")
    archive = zipfile.ZipFile(io.BytesIO(seen["zip"]))
    everything.update({f"zip:{name}": archive.read(name).decode(errors="replace") for name in archive.namelist()})
    assert receiver.spans, "spans were exported"
    everything["spans"] = json.dumps([[s.name, s.attributes, s.resource] for s in receiver.spans], default=str)
    found = {where: sorted(leaked(SECRETS, text)) for where, text in everything.items() if leaked(SECRETS, text)}
    assert found == {}
    assert {"session.jsonl", "token-usage.jsonl", "aw_session.jsonl"} <= set(archive.namelist())


def test_the_records_stay_intact_and_the_forged_output_is_undone(
    attacked: tuple[ActionRun, dict[str, Any], Receiver],
) -> None:
    run, seen, _ = attacked
    (end,) = run.events("session_end")
    assert end["degraded"] == ["file-commands"], "the records are intact; the file commands were restored"
    assert run.outputs["conclusion"] == "success", "the forged conclusion=forged line was removed"
    assert run.outputs["final-message"] == "Done. *** and ***", "each line of a multi-line secret input is redacted"
    # the forged heading is gone; the command that wrote it is listed, inert, among the tool calls
    assert (
        "## forged" not in run.summary.splitlines()
        and "**file-commands**: the agent changed GITHUB_OUTPUT" in run.summary
    )
    session = [json.loads(line) for line in (seen["out"] / "session.jsonl").read_text().splitlines()]
    assert not any(entry.get("forged") for entry in session)
    results = by_command(seen["calls"], session_tool_texts(seen["out"] / "session.jsonl"))
    assert "Permission denied" in next(t for c, t in results.items() if "rm -rf" in c)
    assert "Permission denied" in next(t for c, t in results.items() if "cat /proc/$PPID/environ" in c)


def test_files_the_agent_creates_belong_to_the_runner_s_user(
    shared_tmp: Path, tool_user: ToolIdentity, receiver: Receiver
) -> None:
    paths = runner_paths(shared_tmp, tool_user)
    with WireServer() as model:
        calls = [
            ("bash", {"command": "mkdir -p made && echo hi > made/by-bash.txt && id -u"}),
            ("write", {"path": "made/deeper/by-write.txt", "content": "hello\n"}),
        ]
        model.script(*script(calls))
        inputs = {"prompt": "Make files.", "model": "claude-sonnet-4.6", "anthropic-api-key": ANTHROPIC_KEY}
        extra = {"ANTHROPIC_BASE_URL": model.url, "PATH": "/usr/bin:/bin"}
        started = time.monotonic()
        run = finish(
            start_action(paths, action_env(paths, {**inputs, "upload-artifacts": "false"}, extra)), paths, started, 300
        )
    assert run.returncode == 0, run.stdout[-3000:]
    made = paths.workspace / "made"
    for path in (made, made / "by-bash.txt", made / "deeper", made / "deeper" / "by-write.txt"):
        assert (path.stat().st_uid, path.stat().st_gid) == (tool_user.uid, tool_user.gid), path
    out = paths.runner_temp / "aw-harness"
    assert out.stat().st_uid == 0 and (out / "session.jsonl").stat().st_uid == 0
