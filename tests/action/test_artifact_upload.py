"""Artifact upload from the entrypoint process to a local artifact v4 server, on success and on
failure; an upload problem is a warning and never changes the exit code."""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.action.launch import ActionRun, run_action, write_script
from tests.github.artifact_server import SIGNATURE, ArtifactServer, runtime_token
from tests.sinks.otlp_receiver import Receiver, serve

TOKEN = runtime_token("41", "41")


def _run(
    tmp_path: Path,
    server: ArtifactServer,
    turns: list[dict[str, object]],
    env: dict[str, str] | None = None,
    **inputs: str,
) -> ActionRun:
    ws = tmp_path / "workspace"
    ws.mkdir(exist_ok=True)
    script = write_script(ws, turns)
    base = {"ACTIONS_RUNTIME_TOKEN": TOKEN, "ACTIONS_RESULTS_URL": server.url + "/", "AW_FAUX_SCRIPT": str(script)}
    return run_action(tmp_path, {"prompt": "Do it.", "model": "faux/scripted", **inputs}, {**base, **(env or {})})


@pytest.mark.parametrize("casing", ["snake", "camel"])
def test_success_uploads_the_run_record(tmp_path: Path, casing: str) -> None:
    with ArtifactServer(TOKEN, casing=casing) as server:
        run = _run(tmp_path, server, [{"text": "done"}])
    assert run.returncode == 0, run.stdout
    assert run.outputs["artifact-id"] == "4242"
    created = server.named("CreateArtifact")[0]
    assert created["name"] == "aw-harness-smoke-0-1", "the action.yml default name"
    names = zipfile.ZipFile(io.BytesIO(server.uploaded())).namelist()
    assert {"session.jsonl", "token-usage.jsonl", "context-provenance.jsonl"} <= set(names)
    assert "https://github.com/octo/hello/actions/runs/123456/artifacts/4242" in run.stdout
    leaks = [line for line in run.stdout.splitlines() if SIGNATURE in line or "s%2Bcr3t" in line]
    assert leaks and all(line.startswith("::add-mask::") for line in leaks), "the signed URL's sig is masked"
    assert server.auth_failures == 0


def test_failed_run_is_uploaded_too_with_its_safe_outputs(tmp_path: Path) -> None:
    safe_outputs = tmp_path / "runner_temp" / "gh-aw" / "safeoutputs" / "outputs.jsonl"
    safe_outputs.parent.mkdir(parents=True)
    safe_outputs.write_text('{"type":"missing_tool","tool":"x"}\n')
    with ArtifactServer(TOKEN) as server:
        run = _run(
            tmp_path,
            server,
            [{"error": {"message": "model exploded", "kind": "fatal"}}],
            env={"GH_AW_SAFE_OUTPUTS": str(safe_outputs)},
        )
    assert run.returncode == 1
    assert run.outputs["artifact-id"] == "4242"
    archive = zipfile.ZipFile(io.BytesIO(server.uploaded()))
    assert json.loads(archive.read("session.jsonl").decode().splitlines()[0])["type"] == "session"
    assert archive.read("safe-outputs/outputs.jsonl") == safe_outputs.read_bytes()


@pytest.mark.parametrize(
    ("fail", "exit_code", "turns"),
    [
        ({"CreateArtifact": [409]}, 0, [{"text": "done"}]),
        ({"block": [403]}, 0, [{"text": "done"}]),
        ({"FinalizeArtifact": [400]}, 1, [{"error": {"message": "boom", "kind": "fatal"}}]),
    ],
)
def test_upload_failure_is_a_warning_and_keeps_the_exit_code(
    tmp_path: Path, fail: dict[str, list[int]], exit_code: int, turns: list[dict[str, object]]
) -> None:
    with ArtifactServer(TOKEN, fail=fail) as server:
        run = _run(tmp_path, server, turns)
    assert run.returncode == exit_code
    assert run.outputs["artifact-id"] == ""
    warnings = [c for c in run.runner.named("warning") if c.properties.get("title") == "aw-harness: artifact upload"]
    assert len(warnings) == 1 and warnings[0].data.startswith("failed:")


REPLAY_BLOCK = "<details>\n<summary>Replay this run locally</summary>"


def test_the_commands_that_replay_the_run_are_collapsed_and_name_the_uploaded_artifact(tmp_path: Path) -> None:
    with ArtifactServer(TOKEN) as server:
        run = _run(tmp_path, server, [{"text": "done"}])
    assert run.outputs["artifact-id"] == "4242"
    assert REPLAY_BLOCK in run.summary and "### Replay this run locally" not in run.summary
    block = run.summary.split(REPLAY_BLOCK, 1)[1].split("</details>", 1)[0]
    download = "gh run download 123456 --repo octo/hello --name aw-harness-smoke-0-1 --dir /tmp/aw-run-123456"
    assert f"```sh\n{download}\n" in block and "\naw-harness replay /tmp/aw-run-123456\n```" in block
    assert "aw-harness-replay" not in run.summary, "the placeholder is replaced"


@pytest.mark.parametrize("upload", ["failed", "off"])
def test_no_replay_commands_when_nothing_was_uploaded(tmp_path: Path, upload: str) -> None:
    """The summary says the records were not uploaded: it must not then tell the reader to
    download them."""
    fail = {"CreateArtifact": [409]} if upload == "failed" else {}
    inputs = {"upload-artifacts": "false"} if upload == "off" else {}
    with ArtifactServer(TOKEN, fail=fail) as server:
        run = _run(tmp_path, server, [{"text": "done"}], **inputs)
    assert run.returncode == 0 and run.outputs["artifact-id"] == ""
    assert "**Records:** not uploaded" in run.summary
    assert "gh run download" not in run.summary and "Replay this run locally" not in run.summary
    assert "aw-harness-replay" not in run.summary and "\n\n\n" not in run.summary


def test_no_runtime_token_skips_with_a_warning(tmp_path: Path) -> None:
    ws = tmp_path / "workspace"
    ws.mkdir()
    script = write_script(ws, [{"text": "done"}])
    run = run_action(tmp_path, {"prompt": "x", "model": "faux/scripted"}, {"AW_FAUX_SCRIPT": str(script)})
    assert run.returncode == 0
    assert [w.data for w in run.warnings] == ["skipped: ACTIONS_RUNTIME_TOKEN or ACTIONS_RESULTS_URL is not set"]


def test_upload_disabled_sends_nothing(tmp_path: Path) -> None:
    with ArtifactServer(TOKEN) as server:
        run = _run(tmp_path, server, [{"text": "done"}], **{"upload-artifacts": "false"})
    assert run.returncode == 0
    assert server.calls == []
    assert run.warnings == []


PRINTING_EXTENSION = """
def setup(api):
    def on_start(event, ctx):
        print("extension sees", api.env["MY_SERVICE_TOKEN"])

    api.on("session_start", on_start)
"""
PLANTED = {
    "anthropic-api-key": "sk-ant-PLANTED-input-0001",
    "openai-api-key": "sk-PLANTED-input-0002",
    "github-token": "ghs_PLANTED0003jobtoken",
}
STEP_ENV_SECRET = "PLANTED-step-env-0004"
OTLP_TOKEN = "PLANTED-otlp-0005"


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    yield from serve()


def test_planted_secrets_reach_no_byte_the_action_produces(tmp_path: Path, receiver: Receiver) -> None:
    """A secret in every credential input, in otlp-headers and on the step's env:. The agent's
    shell has GITHUB_TOKEN (the config grants GitHub access; tools run as root here: the
    workspace is root's) and writes it into the output folder and the safe outputs; an
    extension prints the step-env one. The log, outputs, summary, record files, spans and
    artifact zip hold none of them (binary bytes around a secret survive in the zip)."""
    safe_outputs = tmp_path / "runner_temp" / "gh-aw" / "safeoutputs" / "outputs.jsonl"
    safe_outputs.parent.mkdir(parents=True)
    (tmp_path / "workspace").mkdir()
    (tmp_path / "workspace" / "printer.py").write_text(PRINTING_EXTENSION)
    grant = {"engine": {"model": "faux/scripted"}, "tools": {"github": {"toolsets": ["repos"]}}}
    (tmp_path / "workspace" / "config.json").write_text(json.dumps(grant))
    command = (
        'echo "$GITHUB_TOKEN" > "$AW_OUTPUT_DIR/leak.txt"; '
        'printf "\\000\\377%s" "$GITHUB_TOKEN" > "$AW_OUTPUT_DIR/blob.bin"; '
        'echo "{\\"body\\": \\"$GITHUB_TOKEN\\"}" >> "$GH_AW_SAFE_OUTPUTS"'
    )
    turns = [{"text": "writing", "tool_calls": [{"name": "bash", "arguments": {"command": command}}]}, {"text": "done"}]
    inputs = {
        **PLANTED,
        "otlp-endpoint": receiver.url,
        "otlp-headers": f"Authorization=Bearer%20{OTLP_TOKEN}",
        "extensions": "./printer.py",
        "config": "config.json",
    }
    env = {"GH_AW_SAFE_OUTPUTS": str(safe_outputs), "MY_SERVICE_TOKEN": STEP_ENV_SECRET}
    with ArtifactServer(TOKEN) as server:
        run = _run(tmp_path, server, turns, env=env, **inputs)
    assert run.returncode == 0, run.stdout
    archive = zipfile.ZipFile(io.BytesIO(server.uploaded()))
    assert archive.read("leak.txt") == b"***\n"
    assert archive.read("blob.bin") == b"\x00\xff***"
    assert json.loads(archive.read("safe-outputs/outputs.jsonl")) == {"body": "***"}
    assert "extension sees ***" in run.stdout
    assert receiver.spans and receiver.requests[0]["headers"]["authorization"] == f"Bearer {OTLP_TOKEN}"
    produced = {f"zip:{name}": archive.read(name) for name in archive.namelist()}
    records = tmp_path / "runner_temp" / "aw-harness"
    produced.update({f"file:{p.name}": p.read_bytes() for p in records.glob("*.jsonl")})
    log = [line for line in run.stdout.splitlines() if not line.startswith("::add-mask::")]
    produced.update(log="\n".join(log).encode(), stderr=run.stderr.encode(), summary=run.summary.encode())
    produced["outputs"] = json.dumps(run.outputs).encode()
    produced["spans"] = b"".join(r["body"] for r in receiver.requests)
    assert len(produced) >= 12
    for secret in (*PLANTED.values(), STEP_ENV_SECRET, OTLP_TOKEN, TOKEN):
        for where, data in produced.items():
            assert secret.encode() not in data, f"{secret} leaked into {where}"
