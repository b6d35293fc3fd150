"""The workflow-review example end to end through the action entrypoint, the way its two jobs run
it: the scripted model (``faux/scripted``) plays the agent, a real git repository is inspected
with real commands, and each resume starts from the checkpoint the previous job left in its
artifact (copied to ``previous-run/`` as actions/download-artifact would). Between the jobs the
workflow file and config.json change (drift): a later step's change keeps the checkpoint, a
change of the step waiting for review drops its artifact and restarts it."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from tests.action.launch import REPO, ActionRun, run_action
from tests.servers.wire import WireServer
from tests.workflows.test_checkpoint_origin import TOKEN, fake_runs_api

EXAMPLE = "examples/workflow-review"
COMPLETE = "workflow_complete_step"


def _job_steps(job: str) -> dict[str, Any]:
    workflow = YAML(typ="safe").load((REPO / EXAMPLE / "workflow.yml").read_text())
    (step,) = [s for s in workflow["jobs"][job]["steps"] if s.get("id") == "aw"]
    return dict(step["with"])


def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


@pytest.fixture(scope="module")
def repository(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A workspace template: the examples and a git history with a tag."""
    root = tmp_path_factory.mktemp("template")
    shutil.copytree(REPO / "examples", root / "examples")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"]
    subprocess.run([*git, "init", "-q", "-b", "main"], cwd=root, check=True)
    (root / "app.py").write_text("print('v1')\n")
    subprocess.run([*git, "add", "app.py"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "first release"], cwd=root, check=True)
    subprocess.run([*git, "tag", "v1.0.0"], cwd=root, check=True)
    (root / "app.py").write_text("print('v2')\n")
    subprocess.run([*git, "commit", "-q", "-am", "fix: print the right version"], cwd=root, check=True)
    return root


@pytest.fixture
def runs_api() -> Iterator[WireServer]:
    """GitHub's runs API: run 101, the paused run the resume job downloads, is the repository's own."""
    with WireServer(default=fake_runs_api) as server:
        yield server


class Jobs:
    """Runs the example's jobs one after another, each in a fresh workspace."""

    def __init__(self, tmp: Path, template: Path, api: str) -> None:
        self.tmp = tmp
        self.api = api
        self.template = template
        self.count = 0
        self.checkpoint: Path | None = None

    def run(
        self, job: str, turns: list[dict[str, Any]], inputs: dict[str, str] | None = None, edit: Any = None
    ) -> ActionRun:
        self.count += 1
        base = self.tmp / f"job{self.count}"
        workspace = base / "workspace"
        shutil.copytree(self.template, workspace, symlinks=True)
        if edit is not None:
            edit(workspace / EXAMPLE)
        if self.checkpoint is not None:
            (workspace / "previous-run").mkdir()
            shutil.copy(self.checkpoint, workspace / "previous-run" / "workflow-checkpoint.json")
        (workspace / EXAMPLE / "script.json").write_text(json.dumps(turns))
        values = {k: v for k, v in _job_steps(job).items() if "${{" not in str(v)}
        values.update(model="faux/scripted", **(inputs or {}))
        extra = {"AW_FAUX_SCRIPT": "script.json"}
        if job == "resume":  # the paused run is the repository's own: its recorded reviews count (issue 30)
            values.update({"workflow-checkpoint-run": "101", "github-token": TOKEN})
            extra["GITHUB_API_URL"] = self.api
        run = run_action(base, values, extra)
        files = [Path(f) for f in run.result["files"] if f.endswith("workflow-checkpoint.json")]
        self.checkpoint = files[0] if files else self.checkpoint
        return run


def _replace(relative: str, old: str, new: str) -> Any:
    def edit(folder: Path) -> None:
        path = folder / relative
        text = path.read_text()
        assert old in text
        path.write_text(text.replace(old, new))

    return edit


def test_the_release_notes_workflow_pauses_for_review_and_resumes_across_jobs_with_drift(
    tmp_path: Path, repository: Path, runs_api: WireServer
) -> None:
    jobs = Jobs(tmp_path, repository, runs_api.url)
    first = jobs.run(
        "draft",
        [
            _call("bash", command="git log --oneline --decorate -n 100"),
            _call("bash", command="git tag --list"),
            _call(COMPLETE, outcome="ready", summary="fixes: print the right version"),
            _call("write", path="RELEASE_NOTES.md", content="too early"),
            _call(COMPLETE, outcome="submit", summary="first draft", artifact="# v1.1.0\n\n- Fix: version"),
        ],
    )
    assert first.returncode == 0, first.stdout[-3000:]
    assert (first.outputs["conclusion"], first.outputs["stop-reason"]) == ("paused", "paused")
    assert "#### Waiting for review: step `draft`" in first.summary and "- Fix: version" in first.summary
    transcript = (jobs.checkpoint.parent / "session.jsonl").read_text() if jobs.checkpoint else ""
    assert "fix: print the right version" in transcript  # the real git log ran
    assert "'git tag --list' matches no allowed form" in transcript  # read-only preset: no git tag
    assert not (first.paths.workspace / "RELEASE_NOTES.md").exists()  # write is not a draft tool
    assert [p["source"] for p in _prompts(first)] == ["workflow:inspect", "workflow:draft"]

    # job 2: a later step changed (kept) and the config's budget changed; the reviewer asks for changes
    second = jobs.run(
        "resume",
        [_call(COMPLETE, outcome="submit", summary="second draft", artifact="# v1.1.0\n\n## Fixes\n- Version")],
        {"workflow-decision": "request-changes", "workflow-feedback": "Use a Fixes heading"},
        edit=lambda folder: (
            _replace("steps/write.md", "unchanged", "exactly as approved")(folder),
            _replace("config.json", '"max-turns": 40', '"max-turns": 30')(folder),
        ),
    )
    assert second.returncode == 0 and second.outputs["conclusion"] == "paused", second.stdout[-3000:]
    draft_prompt = _last_prompt_text(jobs)
    assert "Use a Fixes heading" in draft_prompt and "- Fix: version" in draft_prompt  # feedback + rejected draft
    assert "## Fixes" in second.summary

    # job 3: the draft step changed: it completed before (sent back by the reviewer), so the run
    # restarts there, and approving the old artifact is refused
    changed_draft = _replace("steps/draft.md", "Keep them short", "Keep them very short")
    refused = jobs.run("resume", [], {"workflow-decision": "approve"}, edit=changed_draft)
    assert refused.returncode == 2 and refused.outputs["stop-reason"] == "invocation_error"
    error = refused.result["error"]
    assert "step 'draft' changed since it completed; it runs again" in error and "resume without a decision" in error
    third = jobs.run(
        "resume",
        [_call(COMPLETE, outcome="submit", summary="third draft", artifact="# v1.1.0\n\n## Fixes\n- The version")],
        {"workflow-decision": "continue"},
        edit=changed_draft,
    )
    assert third.returncode == 0 and third.outputs["conclusion"] == "paused", third.stdout[-3000:]

    # job 4: approved; the write step writes exactly the approved artifact and the run is done
    fourth = jobs.run(
        "resume",
        [
            _call("write", path="RELEASE_NOTES.md", content="# v1.1.0\n\n## Fixes\n- The version\n"),
            _call(COMPLETE, outcome="written", summary="RELEASE_NOTES.md written"),
        ],
        {"workflow-decision": "approve", "workflow-feedback": "Ship it"},
        edit=changed_draft,
    )
    assert fourth.returncode == 0 and fourth.outputs["conclusion"] == "success", fourth.stdout[-3000:]
    assert (fourth.paths.workspace / "RELEASE_NOTES.md").read_text() == "# v1.1.0\n\n## Fixes\n- The version\n"
    record = [e for e in fourth.events("workflow")][-1]
    assert record["status"] == "done"
    assert [(p["step"], p["outcome"], p["decided_by"]) for p in record["path"]] == [
        ("inspect", "ready", "agent"),
        ("draft", "approved", "reviewer"),
        ("write", "written", "agent"),
    ]  # the restart dropped the draft's earlier round from the path; the events keep it
    assert record["visits"] == {"inspect": 1, "draft": 1, "write": 1}
    events = [(e["event"], e["step"]) for e in record["events"]]
    assert ("changes_requested", "draft") in events and ("restarted", "draft") in events
    assert "### Workflow `release-notes`: done" in fourth.summary
    assert {r.path for r in runs_api.requests} == {"/repos/octo/hello/actions/runs/101"}, "each resume asked GitHub"


def _prompts(run: ActionRun) -> list[dict[str, Any]]:
    return [e for e in run.events("message_start") if e.get("role") == "user" and e.get("source")]


def _last_prompt_text(jobs: Jobs) -> str:
    assert jobs.checkpoint is not None
    messages = json.loads(jobs.checkpoint.read_text())["messages"]
    users = [m for m in messages if m["role"] == "user"]
    return str(users[-1]["content"][0]["text"])
