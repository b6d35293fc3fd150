"""Shared workflow fixtures: a four-step workflow with a review gate, written to real files."""

from __future__ import annotations

from pathlib import Path

from aw_action.workflows import LoadedWorkflow, load_workflow

FIX_WORKFLOW = """\
version: 1
id: fix
command: fix
description: Inspect, plan with review, implement, verify
start: inspect
maxStepVisits: 3
steps:
  inspect:
    title: Inspect the request
    prompt: "Inspect {{workflow.input}} (run {{run.id}}, step {{step.id}}: {{step.title}})."
    permissions:
      tools: [read, bash]
      bash: {mode: read-only}
    requires: {tools: [read]}
    transitions: {ready: plan, blocked: $pause}
  plan:
    prompt: {file: prompts/plan.md}
    permissions: {tools: [read]}
    gate: {submitOutcome: submit, approvedOutcome: approved, rejectedOutcome: changes-requested}
    transitions: {approved: implement, changes-requested: plan, blocked: $pause}
  implement:
    prompt: "Implement the approved plan:\\n{{reviewed.artifact}}\\nHandoff: {{last.summary}}"
    permissions:
      tools: [read, write, bash]
      bash:
        mode: allow-list
        allow:
          - executable: git
            argsPrefixes: [[status], [diff]]
    transitions: {done: verify, retry: implement}
  verify:
    prompt: "Verify. Handoff: {{last.summary}}"
    permissions: {tools: [read]}
    transitions: {passed: $done, failed: implement}
"""

PLAN_PROMPT = """\
Plan for {{workflow.input}}.
Feedback: {{gate.feedback}}
Rejected: {{gate.artifact}}
Handoff: {{last.summary}}
"""


def write_workflow(
    folder: Path, text: str = FIX_WORKFLOW, name: str = "fix.workflow.yml", files: dict[str, str] | None = None
) -> Path:
    """Write a workflow and its prompt files (``files``: relative path → text)."""
    folder.mkdir(parents=True, exist_ok=True)
    prompt_files = {"prompts/plan.md": PLAN_PROMPT} if "prompts/plan.md" in text else {}
    prompt_files.update(files or {})
    for relative, content in prompt_files.items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
    path = folder / name
    path.write_text(text)
    return path


def fix_workflow(folder: Path) -> LoadedWorkflow:
    return load_workflow(write_workflow(folder))
