"""The examples: well-formed, consistent with action.yml, and the key-free ones run end to end
through the entrypoint with the inputs their workflow passes."""

from __future__ import annotations

import json
import re
import shutil
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from aw_action.github.outputs import OUTPUT_NAMES
from aw_action.run.config import RunConfig
from tests.action.launch import REPO, declared_inputs, run_action

# examples/gh-aw is a gh-aw workflow, not an action workflow: tests/ghaw/test_engine_definition.py checks it.
EXAMPLES = sorted(p for p in (REPO / "examples").iterdir() if p.is_dir() and p.name not in ("demo", "gh-aw"))
WORKFLOWS = [*(p / "workflow.yml" for p in EXAMPLES), *sorted((REPO / ".github" / "workflows").glob("*.yml"))]
ACTION_WORKFLOWS = [w for w in WORKFLOWS if w.name not in ("ci.yml", "release.yml", "newest-releases.yml")]
OUR_ACTION = re.compile(r"^(\./?(from-source|runner)?|[\w.-]+/aw-harness(/from-source|/runner)?@\S+)$")
OUTPUT_REF = re.compile(r"steps\.aw\.outputs\.([\w-]+)")


def _yaml(path: Path) -> Any:
    return YAML(typ="safe").load(path.read_text())


def _action_steps(workflow: Path) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(job, step) for every step that uses this action."""
    found = []
    for job in _yaml(workflow)["jobs"].values():
        for step in job.get("steps", []):
            if OUR_ACTION.match(str(step.get("uses", ""))):
                found.append((job, step))
    return found


def test_every_example_has_its_three_files() -> None:
    assert {p.name for p in EXAMPLES} == {
        "bedrock",
        "vertex",
        "azure-openai",
        "pr-review",
        "issue-triage",
        "scheduled-report",
        "otel",
        "matrix-smoke",
        "matrix-report",
        "safe-outputs",
        "workflow-review",
        "replay",
        "budget-step-down",
        "continue",
        "python-project",
        "node-project",
        "mcp",
    }
    for folder in EXAMPLES:
        for name in ("workflow.yml", "config.json", "prompt.txt"):
            assert (folder / name).is_file(), f"{folder.name}/{name}"
        assert (folder / "prompt.txt").read_text().strip()


@pytest.mark.parametrize("folder", EXAMPLES, ids=lambda p: p.name)
def test_example_config_is_a_valid_run_config_and_its_files_exist(folder: Path) -> None:
    config = RunConfig.model_validate(json.loads((folder / "config.json").read_text()))
    for entry in config.imports:
        path = entry if isinstance(entry, str) else entry.path
        assert (REPO / path).is_file(), f"import {path} (resolved from the workspace root)"
    if config.harness.faux_script:
        assert (folder / config.harness.faux_script).is_file()


@pytest.mark.parametrize("workflow", ACTION_WORKFLOWS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_workflow_uses_only_declared_inputs_and_outputs(workflow: Path) -> None:
    steps = _action_steps(workflow)
    assert steps, "every example and the smoke workflow use the action"
    inputs = set(declared_inputs())
    for _, step in steps:
        assert set(step.get("with", {})) <= inputs, set(step.get("with", {})) - inputs
        for key in ("config", "prompt-file"):
            if key in step.get("with", {}):
                assert (REPO / step["with"][key]).is_file(), step["with"][key]
    assert set(OUTPUT_REF.findall(workflow.read_text())) <= set(OUTPUT_NAMES)


def test_model_output_is_never_interpolated_into_a_script() -> None:
    for workflow in WORKFLOWS:
        for job in _yaml(workflow)["jobs"].values():
            for step in job.get("steps", []):
                assert "outputs.final-message" not in str(step.get("run", "")), workflow


def test_steps_that_read_the_final_message_run_only_after_a_completed_run() -> None:
    """After a budget or time stop the final message is empty and ``stop-reason`` says why: a
    workflow decides on ``conclusion``/``stop-reason``, never on the text (issue-triage used to
    record an intermediate "Working on step 3." as its decision)."""
    readers = 0
    for workflow in (p / "workflow.yml" for p in EXAMPLES):  # .github/workflows/smoke.yml checks it is empty
        for job in _yaml(workflow)["jobs"].values():
            for step in job.get("steps", []):
                condition = str(step.get("if", ""))
                assert "final-message" not in condition, (workflow, step.get("name"))
                if "outputs.final-message" in json.dumps(step.get("env", {})):
                    readers += 1
                    assert "steps.aw.outputs.conclusion == 'success'" in condition, (workflow, step.get("name"))
    assert readers >= 2


CLOUD_LOGINS = {
    "bedrock": ("aws-actions/configure-aws-credentials@", "bedrock/"),
    "vertex": ("google-github-actions/auth@", "vertex/"),
    "azure-openai": (None, "azure/"),
}
"""The step that turns the job's OIDC token into the cloud's credentials; Azure's exchange is the
action's own (``ai/entra.py``), given the identity in the step's env."""


@pytest.mark.parametrize("folder", sorted(CLOUD_LOGINS))
def test_cloud_examples_sign_in_with_the_jobs_oidc_token_before_the_action(folder: str) -> None:
    login, provider = CLOUD_LOGINS[folder]
    workflow = _yaml(REPO / "examples" / folder / "workflow.yml")
    assert workflow["permissions"]["id-token"] == "write"
    [job] = workflow["jobs"].values()
    uses = [str(step.get("uses", "")) for step in job["steps"]]
    [ours] = [i for i, u in enumerate(uses) if OUR_ACTION.match(u)]
    if login is None:
        assert {"AZURE_CLIENT_ID", "AZURE_TENANT_ID", "AZURE_OPENAI_ENDPOINT"} <= set(job["steps"][ours]["env"])
    else:
        logins = [i for i, u in enumerate(uses) if u.startswith(login)]
        assert logins and logins[0] < ours, uses
        assert uses.index("actions/checkout@v4") < logins[0], "auth writes into the workspace: checkout comes first"
    config = json.loads((REPO / "examples" / folder / "config.json").read_text())
    assert config["engine"]["model"].startswith(provider)
    assert "secrets." not in json.dumps(job["steps"]), "no stored key"


def _workspace_with_examples(tmp_path: Path) -> Path:
    ws = tmp_path / "workspace"
    shutil.copytree(REPO / "examples", ws / "examples")
    return ws


def _leg_inputs(step: dict[str, Any], leg: dict[str, Any]) -> tuple[dict[str, str], dict[str, str]]:
    def subst(value: Any) -> str:
        return re.sub(r"\$\{\{\s*matrix\.([\w-]+)\s*\}\}", lambda m: str(leg[m.group(1)]), str(value))

    inputs = {k: subst(v) for k, v in step.get("with", {}).items() if "${{ github" not in str(v)}
    env = {k: subst(v) for k, v in step.get("env", {}).items()}
    return inputs, env


SMOKE_WORKFLOWS = [REPO / "examples" / "matrix-smoke" / "workflow.yml", REPO / ".github" / "workflows" / "smoke.yml"]


def _distinct_legs() -> list[tuple[Path, dict[str, Any]]]:
    """Every matrix leg of both smoke workflows, run once per distinct set of inputs."""
    seen: set[str] = set()
    legs = []
    for workflow in SMOKE_WORKFLOWS:
        for leg in _yaml(workflow)["jobs"]["smoke"]["strategy"]["matrix"]["include"]:
            key = json.dumps({k: v for k, v in leg.items() if k != "expect-outcome"}, sort_keys=True)
            if key not in seen:
                seen.add(key)
                legs.append((workflow, leg))
    return legs


MATRIX_LEGS = _distinct_legs()


@pytest.mark.parametrize(
    ("workflow", "leg"), MATRIX_LEGS, ids=[f"{w.parent.name}-{leg['scenario']}" for w, leg in MATRIX_LEGS]
)
def test_matrix_smoke_legs_produce_the_outputs_the_workflow_expects(
    tmp_path: Path, workflow: Path, leg: dict[str, Any]
) -> None:
    _workspace_with_examples(tmp_path)
    ((_, step),) = [s for s in _action_steps(workflow) if "matrix" in json.dumps(s[1])]
    inputs, env = _leg_inputs(step, leg)
    run = run_action(tmp_path, {**inputs, "upload-artifacts": "false"}, env)
    assert run.outputs["conclusion"] == leg["expect-conclusion"], run.stdout[-2000:]
    assert run.outputs["stop-reason"] == leg["expect-stop-reason"]
    assert run.returncode == (0 if leg["expect-conclusion"] == "success" else 1)
    assert int(run.outputs["turns"]) >= 1


class _OtlpReceiver:
    def __init__(self) -> None:
        self.paths: list[str] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                receiver.paths.append(self.path)
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"


def test_otel_example_exports_traces_to_the_endpoint_input(tmp_path: Path) -> None:
    _workspace_with_examples(tmp_path)
    ((_, step),) = _action_steps(REPO / "examples" / "otel" / "workflow.yml")
    receiver = _OtlpReceiver()
    try:
        inputs = {**step["with"], "otlp-endpoint": receiver.url, "upload-artifacts": "false"}
        run = run_action(tmp_path, inputs)
    finally:
        receiver.server.shutdown()
        receiver.server.server_close()
    assert run.returncode == 0, run.stdout[-2000:]
    assert "/v1/traces" in receiver.paths
