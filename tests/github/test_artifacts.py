"""Artifact v4 upload against a local Twirp + blob server, in both response casings."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import io
import json
import os
import zipfile
from pathlib import Path

import httpx
import pytest

from aw_action.github import artifacts
from aw_action.github.archive import zip_directory
from aw_action.github.artifacts import ArtifactClient, ArtifactError, backend_ids, is_ghes
from aw_action.github.log import WorkflowLog
from aw_action.github.upload import upload_run_artifacts
from aw_action.run.cancel import CancelClock
from aw_action.run.redact import Redactor
from tests.github.artifact_server import SIGNATURE, ArtifactServer, runtime_token
from tests.github.runner_sim import simulate
from tests.github.silent import SilentServer


def _output_dir(tmp_path: Path) -> Path:
    root = tmp_path / "out"
    (root / "usage").mkdir(parents=True)
    (root / "session.jsonl").write_text('{"type":"session"}\n')
    (root / "token-usage.jsonl").write_text('{"request_id":"r1"}\n')
    (root / "usage" / "aw_session.jsonl").write_text("{}\n")
    (root / ".hidden").write_text("not uploaded")
    return root


async def _upload(server: ArtifactServer, root: Path, name: str = "aw-run", **kw: object) -> artifacts.UploadResult:
    masked: list[str] = []
    async with httpx.AsyncClient() as client:
        uploader = ArtifactClient(server.url, server.token, client, on_secret=masked.append, backoff_s=0.01, **kw)  # type: ignore[arg-type]
        result = await uploader.upload(name, root)
    assert SIGNATURE in masked, "the signed URL's sig must be masked before anything can print it"
    return result


@pytest.mark.parametrize("casing", ["snake", "camel"])
async def test_upload_creates_uploads_and_finalizes(casing: str, tmp_path: Path) -> None:
    token = runtime_token("run-7", "job-9")
    with ArtifactServer(token, casing=casing) as server:
        result = await _upload(server, _output_dir(tmp_path))
    assert result.artifact_id == "4242"
    create = server.named("CreateArtifact")[0]
    assert create == {
        "workflow_run_backend_id": "run-7",
        "workflow_job_run_backend_id": "job-9",
        "name": "aw-run",
        "version": 4,
    }
    blob = server.uploaded()
    finalize = server.named("FinalizeArtifact")[0]
    assert finalize["size"] == str(len(blob)) == str(result.size)
    assert finalize["hash"] == "sha256:" + hashlib.sha256(blob).hexdigest()
    names = sorted(zipfile.ZipFile(io.BytesIO(blob)).namelist())
    assert names == ["session.jsonl", "token-usage.jsonl", "usage/aw_session.jsonl"]


async def test_large_zip_goes_up_in_ordered_blocks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(artifacts, "BLOCK_SIZE", 1024)
    root = tmp_path / "out"
    root.mkdir()
    payload = os.urandom(6000)
    (root / "big.bin").write_bytes(payload)
    with ArtifactServer(runtime_token()) as server:
        result = await _upload(server, root)
    assert len(server.block_list) > 3
    assert [base64.b64decode(b).decode() for b in server.block_list] == [
        f"{i:06d}" for i in range(len(server.block_list))
    ]
    blob = server.uploaded()
    assert len(blob) == result.size
    assert zipfile.ZipFile(io.BytesIO(blob)).read("big.bin") == payload


async def test_transient_server_errors_are_retried(tmp_path: Path) -> None:
    with ArtifactServer(runtime_token(), fail={"CreateArtifact": [503, 500], "block": [502]}) as server:
        result = await _upload(server, _output_dir(tmp_path))
    assert result.artifact_id == "4242"
    assert len(server.named("CreateArtifact")) == 3


async def test_persistent_failure_raises_after_the_retry_budget(tmp_path: Path) -> None:
    with (
        ArtifactServer(runtime_token(), fail={"FinalizeArtifact": [500] * 10}) as server,
        pytest.raises(ArtifactError, match="FinalizeArtifact: HTTP 500"),
    ):
        await _upload(server, _output_dir(tmp_path))
    assert len(server.named("FinalizeArtifact")) == 5


async def test_a_conflict_is_not_retried_and_reports_the_twirp_message(tmp_path: Path) -> None:
    with (
        ArtifactServer(runtime_token(), fail={"CreateArtifact": [409]}) as server,
        pytest.raises(ArtifactError, match="HTTP 409: injected 409"),
    ):
        await _upload(server, _output_dir(tmp_path))
    assert len(server.named("CreateArtifact")) == 1


async def test_a_refused_blob_upload_fails_without_finalizing(tmp_path: Path) -> None:
    with (
        ArtifactServer(runtime_token(), fail={"block": [403]}) as server,
        pytest.raises(ArtifactError, match="block 0: HTTP 403"),
    ):
        await _upload(server, _output_dir(tmp_path))
    assert server.named("FinalizeArtifact") == []


def test_backend_ids_come_from_the_results_scope() -> None:
    ids = backend_ids(runtime_token("abc", "def"))
    assert (ids.workflow_run, ids.workflow_job_run) == ("abc", "def")


@pytest.mark.parametrize(
    "token",
    [
        "not-a-jwt",
        "a.%%%.c",
        "a." + base64.urlsafe_b64encode(json.dumps({"scp": "Actions.Results:1"}).encode()).decode() + ".c",
    ],
)
def test_unusable_tokens_raise(token: str) -> None:
    with pytest.raises(ArtifactError):
        backend_ids(token)


def test_ghes_detection() -> None:
    assert not is_ghes("https://github.com")
    assert not is_ghes("https://acme.ghe.com")
    assert is_ghes("https://github.acme.internal")


def test_zip_leaves_out_hidden_files_and_symlinks(tmp_path: Path) -> None:
    root = _output_dir(tmp_path)
    (root / "link.jsonl").symlink_to(root / "session.jsonl")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("x")
    archive = zip_directory(root, tmp_path / "a.zip")
    assert archive.files == 3
    assert ".hidden" not in zipfile.ZipFile(archive.path).namelist()


async def test_twirp_calls_go_to_the_origin_of_the_results_url(tmp_path: Path) -> None:
    """As the toolkit does (``new URL(ACTIONS_RESULTS_URL).origin``): a path in the URL is not kept."""
    with ArtifactServer(runtime_token()) as server:
        async with httpx.AsyncClient() as client:
            uploader = ArtifactClient(server.url + "/results/v1/", server.token, client, backoff_s=0.01)
            result = await uploader.upload("aw-run", _output_dir(tmp_path))
    assert result.artifact_id == "4242"


def test_zip_redacts_each_file_and_keeps_other_bytes(tmp_path: Path) -> None:
    root = tmp_path / "out"
    root.mkdir()
    (root / "notes.txt").write_text("token ghs_secret123 here\n")
    (root / "blob.bin").write_bytes(b"\x00\xff\xfeghs_secret123\x80")
    extra = tmp_path / "outputs.jsonl"
    extra.write_text('{"body":"ghs_secret123"}\n')
    scrub = Redactor(["ghs_secret123"]).text
    archive = zipfile.ZipFile(zip_directory(root, tmp_path / "a.zip", {"safe/outputs.jsonl": extra}, scrub).path)
    assert archive.read("notes.txt") == b"token *** here\n"
    assert archive.read("blob.bin") == b"\x00\xff\xfe***\x80"
    assert archive.read("safe/outputs.jsonl") == b'{"body":"***"}\n'


async def test_an_upload_that_never_finishes_is_abandoned_at_its_limit(tmp_path: Path) -> None:
    out = io.StringIO()
    log = WorkflowLog(out)
    with SilentServer() as url:
        env = {"ACTIONS_RUNTIME_TOKEN": runtime_token(), "ACTIONS_RESULTS_URL": url}
        task = upload_run_artifacts(env, "aw-run", _output_dir(tmp_path), log, CancelClock(), 5.5, limit_s=0.5)
        upload = await asyncio.wait_for(task, timeout=30)
    log.finish()
    assert upload.artifact_id == "" and upload.problem == "upload abandoned: not finished within 0.5 s"
    assert [w.data for w in simulate(out.getvalue()).named("warning")] == ["abandoned: not finished within 0.5 s"]


async def test_the_runner_side_action_s_records_are_staged_scrubbed_for_its_upload_step(tmp_path: Path) -> None:
    """The runner-side action's upload step used to upload the output folder itself with
    actions/upload-artifact: hidden files included, symlinks followed, nothing redacted (found by
    review). With ``AW_ARTIFACT_STAGE`` the harness copies what its own zip would hold, through
    its redactor, into that folder (made afresh: a symlink planted there is replaced, not
    followed), and the step uploads the copy."""
    root = _output_dir(tmp_path)
    (root / "leak.txt").write_text("key sk-stage-secret-0123456789 here\n")
    (root / "link.txt").symlink_to(tmp_path / "elsewhere.txt")
    (tmp_path / "elsewhere.txt").write_text("a file the agent pointed at\n")
    extra = tmp_path / "outputs.jsonl"
    extra.write_text('{"body":"sk-stage-secret-0123456789"}\n')
    stage = tmp_path / "stage"
    planted = tmp_path / "planted"
    planted.mkdir()
    stage.symlink_to(planted)
    out = io.StringIO()
    log = WorkflowLog(out, Redactor(["sk-stage-secret-0123456789"]))
    env = {"AW_ARTIFACT_STAGE": str(stage), "GH_AW_SAFE_OUTPUTS": str(extra)}
    upload = await upload_run_artifacts(env, "aw-run", root, log, CancelClock(), 5.5)
    assert upload.artifact_id == "" and upload.problem == "left to the action's upload step"
    staged = sorted(p.relative_to(stage).as_posix() for p in stage.rglob("*") if p.is_file())
    assert staged == [
        "leak.txt", "safe-outputs/outputs.jsonl", "session.jsonl", "token-usage.jsonl", "usage/aw_session.jsonl"
    ]  # fmt: skip
    assert not stage.is_symlink() and list(planted.iterdir()) == []
    assert (stage / "leak.txt").read_text() == "key *** here\n"
    assert (stage / "safe-outputs" / "outputs.jsonl").read_text() == '{"body":"***"}\n'
    assert "5 files of" in out.getvalue() and "staged in" in out.getvalue()
