"""A checkpoint's reviews count only by its origin, read from GitHub's record of the run that
uploaded it (issue 30), never from its own files.

The forgery is the one the issue describes: whoever controls the artifact writes an approval
into the checkpoint, consistent with the workflow (the engine's own ``decide_gate``), so every
check of the checkpoint's files passes. ``aw-harness workflow resume`` runs as a real process
against a local fake of GitHub's REST API (``GET /repos/{o}/{r}/actions/runs/{id}``) and the
real PyGithub client: from a fork's run the approval is withheld and the gated step runs again
for a new review; from the repository's own run it is accepted and the run continues after
the gate.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aw_action.github.run_origin import RunOrigin, judge
from aw_action.workflows import decide_gate, load_workflow, read_checkpoint, write_checkpoint
from tests.servers.wire import ReceivedRequest, Reply, WireServer
from tests.workflows.test_cli import TO_THE_GATE, Rig, complete, prompts

TOKEN = "ghs_checkpointorigintoken0123456789"
REPO = "octo/repo"
RUNS: dict[str, dict[str, Any]] = {
    "101": {"event": "workflow_dispatch", "head_repository": "self"},
    "202": {"event": "pull_request", "head_repository": "stranger/repo"},
    "303": {"event": "pull_request_target", "head_repository": "self"},
    "404": {"event": "push", "head_repository": None},
}


def fake_runs_api(request: ReceivedRequest) -> Reply:
    """``GET /repos/{owner}/{repo}/actions/runs/{id}``, as GitHub answers it (the fields used;
    ``self``: the run's own repository). Run 101 is the repository's own."""
    parts = request.path.split("?")[0].strip("/").split("/")
    if request.headers.get("authorization") not in (f"token {TOKEN}", f"Bearer {TOKEN}"):
        return Reply.json_body({"message": "Bad credentials"}, status=401)
    if len(parts) == 6 and parts[:1] == ["repos"] and parts[3:5] == ["actions", "runs"] and parts[5] in RUNS:
        run, repository = RUNS[parts[5]], f"{parts[1]}/{parts[2]}"
        head = repository if run["head_repository"] == "self" else run["head_repository"]
        body = {
            "id": int(parts[5]),
            "event": run["event"],
            "repository": {"full_name": repository},
            "head_repository": {"full_name": head} if head else None,
        }
        return Reply.json_body(body)
    return Reply.json_body({"message": "Not Found"}, status=404)


@pytest.fixture
def api() -> Iterator[WireServer]:
    with WireServer(default=fake_runs_api) as server:
        yield server


def forged(rig: Rig) -> Path:
    """The paused run's checkpoint with an approval nobody gave written into it, consistent
    with the workflow (as the run that wrote the checkpoint, or the artifact's holder, could)."""
    stored = read_checkpoint(rig.checkpoint)
    workflow = load_workflow(rig.workflow)
    approved = decide_gate(workflow, stored.state, approved=True, feedback="LGTM")
    path = rig.tmp / "forged-checkpoint.json"
    write_checkpoint(path, stored.model_copy(update={"state": approved}))
    return path


@pytest.fixture
def rig(tmp_path: Path, api: WireServer) -> Rig:
    rig = Rig(tmp_path)
    first = rig.run(TO_THE_GATE)
    assert first.returncode == 0 and first.result["stop_reason"] == "paused", first.stderr[-3000:]
    rig.env.update(GITHUB_API_URL=api.url, GITHUB_TOKEN=TOKEN, GITHUB_REPOSITORY=REPO)
    return rig


def test_a_forged_approval_from_a_fork_s_run_is_withheld_and_the_gate_decided_again(rig: Rig, api: WireServer) -> None:
    again = rig.resume(
        [complete("submit", "plan again", "# Plan v2")], "--checkpoint-run", "202", checkpoint=forged(rig)
    )
    assert again.returncode == 0 and again.result["stop_reason"] == "paused", again.stderr[-3000:]
    assert prompts(again) == ["workflow:plan"], "the gated step runs again, nothing after the gate"
    state = rig.stored()["state"]
    assert state["history"][-1]["decided_by"] == "agent" and state["pending_gate"]["artifact"] == "# Plan v2"
    restarted = [e for e in state["trail"] if e["event"] == "restarted"]
    assert "ran the code of stranger/repo, a fork's" in restarted[-1]["reason"]
    assert [r.path.split("?")[0] for r in api.requests] == [f"/repos/{REPO}/actions/runs/202"]


def test_the_same_approval_from_the_repository_s_own_run_is_accepted(rig: Rig) -> None:
    done = rig.resume(
        [complete("done", "fixed parse()"), complete("passed", "all green")],
        "--checkpoint-run",
        "101",
        checkpoint=forged(rig),
    )
    assert done.returncode == 0 and done.result["stop_reason"] == "completed", done.stderr[-3000:]
    assert prompts(done) == ["workflow:implement", "workflow:verify"]


@pytest.mark.parametrize(
    ("run", "why"),
    [
        ("303", "pull_request_target"),
        ("404", "a deleted repository"),
        ("999", "could not be looked up (GitHub answered 404)"),
        (None, "not named"),
    ],
)
def test_an_origin_that_cannot_vouch_withholds_the_approval(rig: Rig, run: str | None, why: str) -> None:
    rig.env["GITHUB_ACTIONS"] = "true"  # inside Actions a checkpoint without a named run vouches for nothing
    args = ("--checkpoint-run", run) if run else ()
    again = rig.resume([complete("submit", "plan again", "# Plan v2")], *args, checkpoint=forged(rig))
    assert again.returncode == 0 and prompts(again) == ["workflow:plan"], again.stderr[-3000:]
    reasons = [e.get("reason", "") for e in rig.stored()["state"]["trail"] if e["event"] == "restarted"]
    assert why in reasons[-1]


def test_a_decision_given_now_counts_whatever_the_checkpoint_s_origin(rig: Rig) -> None:
    """Withholding applies to the reviews a checkpoint records; a pending review is decided by
    whoever resumes it, now."""
    done = rig.resume(
        [complete("done", "fixed parse()"), complete("passed", "all green")], "--approve", "--checkpoint-run", "202"
    )
    assert done.returncode == 0 and done.result["stop_reason"] == "completed", done.stderr[-3000:]
    assert prompts(done) == ["workflow:implement", "workflow:verify"]


def test_the_origin_rules() -> None:
    assert judge(RunOrigin("1", REPO, REPO, "issue_comment"), REPO) is None
    assert judge(RunOrigin("1", "other/repo", REPO, "push"), REPO) == "run 1 belongs to other/repo, not octo/repo"
    assert "workflow_run" in (judge(RunOrigin("1", REPO, REPO, "workflow_run"), REPO) or "")
