"""Which tests the README's quick command leaves out: one table, read by ``tests/conftest.py``.

``pytest`` with no test named (the README's command) runs the quick suite: everything but the
tests marked ``slow`` (whole runs against stuck servers, signals and deadlines, property tests,
wheel builds: they are most of the time and little of the code) and ``container`` (the image
under Docker). ``.ci/run`` runs those right after it (``pytest -m "slow or container"``). Naming
tests (``pytest tests``, ``pytest tests/faults``) or giving ``-m`` runs what was asked. Marks come
from this table by node id, never from decorators in the test files.
"""

from __future__ import annotations

CONTAINER = ("tests/container/", "tests/security/test_image_env_and_paths.py")
"""The action's image under Docker (they skip, saying why, without an engine)."""

SLOW: dict[str, str] = {
    "tests/faults/": "the fault matrix: stuck servers, deadlines and signals against real processes",
    "tests/awf/": "the AWF rig: gh-aw's agent step end to end",
    "tests/cli/test_second_signal.py": "a second signal at every moment of a request",
    "tests/cli/test_stops.py": "deadlines and signals against blocked event loops",
    "tests/cli/test_cut_short_turns.py": "deadlines and budgets that cut a turn short",
    "tests/cli/test_run_records.py": "several whole runs in one folder",
    "tests/action/test_trigger_gate.py": "whole action runs per trigger event",
    "tests/action/test_cancel.py": "the runner's cancel against stuck runs",
    "tests/action/test_artifact_upload.py": "whole runs uploading to a local artifact server",
    "tests/action/test_workflow_example.py": "the workflow example across three jobs",
    "tests/security/test_attack_suite_action.py": "the hostile script through the action",
    "tests/security/test_attack_suite_cli.py": "the hostile script through the CLI",
    "tests/security/test_process_containment.py": "fork chains and fork bombs against whole runs",
    "tests/security/test_env_policy_run.py": "the tools' environment in a run through the CLI",
    "tests/security/test_replay_trust.py": "whole action runs replaying on a fork's pull request",
    "tests/run/test_input_properties.py": "property tests of the input parsers",
    "tests/audit/test_audit_hostile.py": "property tests of the audit's readers",
    "tests/report/test_report.py": "whole runs of every ending, a timeout and a cancel among them, then a report",
    "tests/report/test_action_mode.py": "a matrix's legs through the action, then a report job",
    "tests/ghaw/test_install_step.py": "wheel builds and pip installs",
    "tests/action/test_runner_action_run.py": "the runner-side action's venv install, then two examples' jobs",
    "tests/ghaw/test_gh_aw_parser_step.py": "four whole gh-aw agent steps, one waiting out its deadline",
    "tests/ai/test_cli_providers.py": "whole runs against each provider's local server",
    "tests/replay/test_continue.py": "whole runs through the anthropic SDK, then runs that continue them",
    "tests/action/test_continue_from.py": "whole action runs continuing an earlier run, per origin",
    "tests/extensions/test_model_switch_sdks.py": "whole runs switching models against the SDKs' local servers",
    "tests/docs/test_examples_offline.py": "every example's offline commands",
    "tests/environment/test_read_once.py": "three whole action processes, the runner's facts counted",
    "tests/mcp/test_cli_runs.py": "whole runs against real MCP servers, slow to start, hanging and crashing",
    "tests/mcp/test_connection.py": "real MCP servers started, flooded and killed",
    "tests/mcp/test_replay.py": "a whole run with an MCP server, then its replay",
    "tests/mcp/test_secret_holder.py": "a whole run as root with a server given secrets, as another user",
    "tests/mcp/test_workflow.py::test_two": "a whole workflow run against two MCP servers",
    "tests/mcp/test_workflow.py::test_a_selector": "a workflow run refused before it starts",
    "tests/docs/test_readme.py::test_the_quick_suite_and_the_rest_are_every_test_once": "two collections",
}
"""Node id prefix -> why it is slow."""


def marker_for(nodeid: str) -> str | None:
    """``container``, ``slow`` or None (the quick suite)."""
    if nodeid.startswith(CONTAINER):
        return "container"
    if nodeid.startswith(tuple(SLOW)):
        return "slow"
    return None
