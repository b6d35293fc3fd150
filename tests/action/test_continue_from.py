"""The action's ``continue-from`` (issue 35): the artifact's origin is GitHub's record of the run that
uploaded it (``continue-from-run``), read from a local fake of ``GET /repos/{o}/{r}/actions/runs/{id}``
through the real PyGithub client; the model is the real anthropic SDK against the local wire
server. The repository's own run is continued (its history in the first request, the
``session-id`` output, the summary's costs); another repository's run, a fork's run and an
unnamed run are refused before any request, exit 2 naming the input, unless
``continue-from-untrusted`` lets them through; an artifact whose records name another run than the
one that uploaded it is refused too."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aw_action.github.archive import zip_directory
from tests.action.launch import ActionRun, run_action
from tests.conftest import base_env, run_cli, write_run_files
from tests.servers import anthropic as ant
from tests.servers.wire import ReceivedRequest, Reply, WireServer

TOKEN = "ghs_continuefromtoken0123456789abcd"
REPO = "octo/hello"
KEY = "sk-ant-api03-continue-NeverShowThis-123"
RUNS: dict[str, dict[str, Any]] = {
    "101": {"event": "pull_request", "repository": REPO, "head": REPO},
    "202": {"event": "pull_request", "repository": REPO, "head": "stranger/hello"},
    "303": {"event": "pull_request_target", "repository": REPO, "head": REPO},
    "505": {"event": "push", "repository": "other/repo", "head": "other/repo"},
    "606": {"event": "issue_comment", "repository": REPO, "head": REPO},
}
FIRST_PROMPT = "Review this pull request."
FIRST_ANSWER = "The review: one typo in README."
NEXT = "Please also check the tests."


ZIPS: dict[str, bytes] = {}
"""Artifact id -> its zip, as blob storage serves it."""
ARTIFACTS: dict[str, list[dict[str, Any]]] = {
    "101": [{"id": 9, "name": "aw-review-pr-7", "expired": False}, {"id": 8, "name": "other", "expired": False}],
    "606": [{"id": 6, "name": "aw-review-pr-7", "expired": True}],
}


def runs_api(request: ReceivedRequest) -> Reply:
    """GitHub's record of a run, as ``run_origin.read_run_origin`` reads it; a run's artifacts and
    their download (a redirect to blob storage on another host, which must not get the token)."""
    parts = request.path.split("?")[0].strip("/").split("/")
    host = request.headers.get("host", "")
    if parts[0] == "blob":
        if "authorization" in request.headers:
            return Reply.json_body({"message": "the token went to blob storage"}, status=400)
        return Reply(200, {"content-type": "application/zip"}, [ZIPS[parts[1]]], chunked=False)
    if parts[-1] == "zip" and request.headers.get("authorization") == f"Bearer {TOKEN}":
        port = host.rsplit(":", 1)[-1]
        return Reply(302, {"location": f"http://localhost:{port}/blob/{parts[-2]}"}, [], chunked=False)
    if parts[-1] == "artifacts" and parts[-2] in ARTIFACTS:
        listed = [
            {**a, "archive_download_url": f"http://{host}/repos/{REPO}/actions/artifacts/{a['id']}/zip"}
            for a in ARTIFACTS[parts[-2]]
        ]
        return Reply.json_body({"total_count": len(listed), "artifacts": listed})
    if request.headers.get("authorization") not in (f"token {TOKEN}", f"Bearer {TOKEN}"):
        return Reply.json_body({"message": "Bad credentials"}, status=401)
    if request.path.startswith("/repos/") and "/actions/runs/" in request.path and parts[-1] in RUNS:
        run = RUNS[parts[-1]]
        body = {
            "id": int(parts[-1]),
            "event": run["event"],
            "repository": {"full_name": run["repository"]},
            "head_repository": {"full_name": run["head"]},
            "artifacts_url": f"http://{host}/repos/{REPO}/actions/runs/{parts[-1]}/artifacts",
        }
        return Reply.json_body(body)
    return Reply.json_body({"message": "Not Found"}, status=404)


@pytest.fixture(scope="module")
def earlier(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An earlier run's records (scripted model), recorded as GitHub run 101 of the repository."""
    tmp = tmp_path_factory.mktemp("earlier")
    cfg, prompt = write_run_files(
        tmp, {"engine": {"id": "aw", "model": "faux/scripted"}}, FIRST_PROMPT, [{"text": FIRST_ANSWER}]
    )
    env = base_env(tmp, GITHUB_RUN_ID="101", GITHUB_REPOSITORY=REPO, GITHUB_SERVER_URL="https://github.com")
    run = run_cli(["--config", str(cfg), "--prompt", str(prompt), "--format", "jsonl"], env)
    assert run.returncode == 0, run.stderr[-2000:]
    return run.output_dir


@pytest.fixture(scope="module")
def api() -> Iterator[WireServer]:
    with WireServer(default=runs_api) as server:
        yield server


def continued(tmp: Path, earlier: Path, api: WireServer, **inputs: str) -> tuple[ActionRun, list[Any]]:
    artifact = tmp / "runner_temp" / "earlier"
    shutil.copytree(earlier, artifact)
    ws = tmp / "workspace"
    ws.mkdir(parents=True)
    (ws / "config.json").write_text(json.dumps({"engine": {"id": "aw", "model": "claude-sonnet-4.6"}}))
    with WireServer() as model:
        model.script(ant.stream_reply(text="The tests look fine.", use=ant.usage(200, 20)))
        run = run_action(
            tmp,
            {
                "config": "config.json",
                "prompt": NEXT,
                "anthropic-api-key": KEY,
                "github-token": TOKEN,
                "upload-artifacts": "false",
                "continue-from": str(artifact),
                **inputs,
            },
            {"ANTHROPIC_BASE_URL": model.url, "GITHUB_API_URL": api.url, "AW_RETRY_MAX_ATTEMPTS": "1"},
        )
        return run, [r.json for r in model.requests]


def test_the_repositorys_own_run_is_continued(earlier: Path, api: WireServer, tmp_path: Path) -> None:
    run, requests = continued(tmp_path, earlier, api, **{"continue-from-run": "101"})
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    [first] = requests
    said = json.dumps(first["messages"])
    assert FIRST_PROMPT in said and FIRST_ANSWER in said and NEXT in said
    assert first["messages"][-1]["role"] == "user" and NEXT in json.dumps(first["messages"][-1])
    assert len(run.outputs["session-id"]) == 36
    assert "### Continued conversation" in run.summary and "run `101`" in run.summary
    records = tmp_path / "runner_temp" / "aw-harness" / "aw_session.jsonl"
    [harness_run] = [json.loads(line) for line in records.read_text().splitlines() if '"harness.run"' in line]
    continues = json.dumps(harness_run)
    assert '"runId": "101"' in continues and f'"repository": "{REPO}"' in continues and '"runs": 1' in continues


@pytest.mark.parametrize(
    ("run_id", "why"),
    [
        ("505", "belongs to other/repo, not octo/hello"),
        ("202", "ran the code of stranger/hello, a fork's"),
        ("303", "pull_request_target"),
        ("", "continue-from-run is not set"),
    ],
    ids=["another-repository", "a-fork", "pull-request-target", "unnamed"],
)
def test_an_artifact_github_does_not_vouch_for_is_refused(
    earlier: Path, api: WireServer, tmp_path: Path, run_id: str, why: str
) -> None:
    run, requests = continued(tmp_path, earlier, api, **{"continue-from-run": run_id})
    assert run.returncode == 2 and requests == []
    error = run.result["error"]
    assert error.startswith("Input 'continue-from': ") and why in error and "continue-from-untrusted" in error
    assert run.outputs["conclusion"] == "failure"


def test_continue_from_untrusted_continues_a_forks_artifact_with_a_warning(
    earlier: Path, api: WireServer, tmp_path: Path
) -> None:
    run, requests = continued(tmp_path, earlier, api, **{"continue-from-run": "202", "continue-from-untrusted": "true"})
    assert run.returncode == 0, run.stdout[-3000:]
    assert len(requests) == 1 and FIRST_ANSWER in json.dumps(requests[0]["messages"])
    assert any("a fork's" in w.data for w in run.warnings)


def test_records_of_another_run_than_the_one_that_uploaded_them_are_refused(
    earlier: Path, api: WireServer, tmp_path: Path
) -> None:
    run, requests = continued(tmp_path, earlier, api, **{"continue-from-run": "606"})
    assert run.returncode == 2 and requests == []
    assert "its records name run 101, not run 606" in run.result["error"]
    assert run.result["error"].startswith("continue-from: ")


def test_the_action_downloads_the_artifact_by_its_run_and_name(earlier: Path, api: WireServer, tmp_path: Path) -> None:
    ZIPS["9"] = zip_directory(earlier, tmp_path / "upload.zip").path.read_bytes()
    run, requests = continued(
        tmp_path,
        earlier,
        api,
        **{"continue-from": "", "continue-from-artifact": "aw-review-pr-7", "continue-from-run": "101"},
    )
    assert run.returncode == 0, run.stdout[-3000:]
    assert len(requests) == 1 and FIRST_ANSWER in json.dumps(requests[0]["messages"])


@pytest.mark.parametrize(
    ("run_id", "name", "why"),
    [
        ("606", "aw-review-pr-7", "has expired"),
        ("101", "aw-review-pr-8", "has no artifact named 'aw-review-pr-8' (it has: aw-review-pr-7, other)"),
        ("202", "aw-review-pr-7", "a fork's"),
    ],
    ids=["expired", "no-such-name", "a-forks-run"],
)
def test_an_artifact_that_cannot_be_had_is_said_so(
    earlier: Path, api: WireServer, tmp_path: Path, run_id: str, name: str, why: str
) -> None:
    inputs = {"continue-from": "", "continue-from-artifact": name, "continue-from-run": run_id}
    run, requests = continued(tmp_path, earlier, api, **inputs)
    assert run.returncode == 2 and requests == []
    assert run.result["error"].startswith("Input 'continue-from-artifact': ") and why in run.result["error"]
