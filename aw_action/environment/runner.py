"""The runner's facts: one frozen record (``RunnerFacts``), read once per entry point.

GitHub Actions describes the job through ``GITHUB_*``, ``RUNNER_*`` and ``ACTIONS_*`` variables
(the runner's ``GitHubContext``); this module is the one place those names are spelled. An entry
point builds the record once (``RunnerFacts.read``) beside the resolved config; the harness, the
extensions, the sinks, ``github/`` and ``apply_outputs/`` read its fields. Every field is the
variable's value stripped, ``""`` when unset; the defaults a missing value gets (the server and
API URLs, the output folder) are applied in one place each, here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field, replace
from pathlib import Path

from aw_action.environment.tuning import DEFAULT_OUTPUT_DIR, OUTPUT_DIR
from aw_action.lazy_dataclass import dataclass

DEFAULT_SERVER_URL = "https://github.com"
DEFAULT_API_URL = "https://api.github.com"

WORKSPACE_VAR = "GITHUB_WORKSPACE"
"""Set by the action for the harness it starts (the workspace as the container sees it)."""
MODE_VAR = "GITHUB_AW"
"""``true`` inside a compiled gh-aw workflow (``run/mode.py``)."""
AGENT_PROCESS_VAR = "AW_AGENT_PROCESS"
"""The marker every agent process carries (``tools/processes.py``)."""
EVENT_PATH_VAR = "GITHUB_EVENT_PATH"
EVENT_NAME_VAR = "GITHUB_EVENT_NAME"
ACTOR_VAR = "GITHUB_ACTOR"
REPOSITORY_VAR = "GITHUB_REPOSITORY"
RUN_ID_VAR = "GITHUB_RUN_ID"
STEP_SUMMARY_VAR = "GITHUB_STEP_SUMMARY"
OUTPUT_VAR = "GITHUB_OUTPUT"
FILE_COMMANDS = ("GITHUB_ENV", "GITHUB_PATH", "GITHUB_STATE", OUTPUT_VAR, STEP_SUMMARY_VAR)
"""The job's file commands: files a step appends to, which change the job's later steps."""
RUNTIME_TOKEN_VAR = "ACTIONS_RUNTIME_TOKEN"
"""The artifact service's token (``github/artifacts.py`` names it in its refusals)."""
RUNTIME_CREDENTIALS = (RUNTIME_TOKEN_VAR, "ACTIONS_ID_TOKEN_REQUEST_TOKEN")
"""The job's own credentials (artifacts, cache, OIDC): the action's, never the agent's or a record's."""
ARTIFACT_RUNTIME_VARS = (RUNTIME_TOKEN_VAR, "ACTIONS_RESULTS_URL")
"""What an artifact upload needs from the runner."""
RUNTIME_VARS = frozenset(
    {
        *RUNTIME_CREDENTIALS,
        "ACTIONS_RUNTIME_URL",
        "ACTIONS_RESULTS_URL",
        "ACTIONS_CACHE_URL",
        "ACTIONS_ID_TOKEN_REQUEST_URL",
    }
)
"""The Actions runtime's variables."""


def _get(env: Mapping[str, str], name: str) -> str:
    return (env.get(name) or "").strip()


@dataclass(frozen=True)
class RunnerFacts:
    """What the runner says about this job (see the module docstring)."""

    actions: bool = False
    """``GITHUB_ACTIONS=true``: a GitHub Actions job."""
    act: bool = False
    """``ACT=true``: nektos/act runs the job locally."""
    gh_aw: bool = False
    """``GITHUB_AW=true``: inside a compiled gh-aw workflow."""
    workspace: str = ""
    runner_workspace: str = ""
    runner_temp: str = ""
    repository: str = ""
    run_id: str = ""
    run_attempt: str = ""
    workflow: str = ""
    job: str = ""
    sha: str = ""
    ref: str = ""
    base_ref: str = ""
    actor: str = ""
    event_name: str = ""
    event_path: str = ""
    server_url: str = ""
    api_url: str = ""
    output_dir_named: str = ""
    """``AW_OUTPUT_DIR`` as set (``output_dir`` applies the default)."""
    file_commands: Mapping[str, str] = field(default_factory=dict)
    """Each file command (``FILE_COMMANDS``) that is set, with its path."""
    results_url: str = ""
    runtime_token: str = field(default="", repr=False)
    id_token_request_url: str = ""

    @classmethod
    def read(cls, env: Mapping[str, str]) -> RunnerFacts:
        """The record of ``env`` (an entry point's ``os.environ``, or a test's mapping)."""
        return cls(
            actions=_get(env, "GITHUB_ACTIONS") == "true",
            act=_get(env, "ACT") == "true",
            gh_aw=_get(env, MODE_VAR).lower() == "true",
            workspace=_get(env, WORKSPACE_VAR),
            runner_workspace=_get(env, "RUNNER_WORKSPACE"),
            runner_temp=_get(env, "RUNNER_TEMP"),
            repository=_get(env, REPOSITORY_VAR),
            run_id=_get(env, RUN_ID_VAR),
            run_attempt=_get(env, "GITHUB_RUN_ATTEMPT"),
            workflow=_get(env, "GITHUB_WORKFLOW"),
            job=_get(env, "GITHUB_JOB"),
            sha=_get(env, "GITHUB_SHA"),
            ref=_get(env, "GITHUB_REF"),
            base_ref=_get(env, "GITHUB_BASE_REF"),
            actor=_get(env, ACTOR_VAR),
            event_name=_get(env, EVENT_NAME_VAR),
            event_path=_get(env, EVENT_PATH_VAR),
            server_url=_get(env, "GITHUB_SERVER_URL"),
            api_url=_get(env, "GITHUB_API_URL"),
            output_dir_named=_get(env, OUTPUT_DIR.name),
            file_commands={name: env[name] for name in FILE_COMMANDS if env.get(name)},
            results_url=_get(env, "ACTIONS_RESULTS_URL"),
            runtime_token=_get(env, RUNTIME_TOKEN_VAR),
            id_token_request_url=_get(env, "ACTIONS_ID_TOKEN_REQUEST_URL"),
        )

    # ---- the defaults, each applied here ------------------------------------------------------

    @property
    def server(self) -> str:
        """The server's URL without a trailing slash (``https://github.com`` when unset)."""
        return (self.server_url or DEFAULT_SERVER_URL).rstrip("/")

    @property
    def api(self) -> str:
        """The REST API's URL without a trailing slash (``https://api.github.com`` when unset)."""
        return (self.api_url or DEFAULT_API_URL).rstrip("/")

    @property
    def output_dir(self) -> Path:
        """The output folder: ``AW_OUTPUT_DIR``, else ``/tmp/gh-aw``."""
        return Path(self.output_dir_named or DEFAULT_OUTPUT_DIR)

    def for_harness(self, output_dir: Path, workspace: Path) -> RunnerFacts:
        """The record of the environment an entry point gives the harness it starts: ``read`` of
        it gives this (``AW_OUTPUT_DIR`` and ``GITHUB_WORKSPACE`` set, the Actions runtime's
        variables, ``RUNTIME_VARS``, left out)."""
        return replace(
            self.without_runtime(), output_dir_named=str(output_dir).strip(), workspace=str(workspace).strip()
        )

    def without_runtime(self) -> RunnerFacts:
        """The record of this environment with the Actions runtime's variables (``RUNTIME_VARS``)
        left out, as an entry point hands it to a command it runs."""
        return replace(self, results_url="", runtime_token="", id_token_request_url="")

    def workspace_or(self, fallback: str | Path) -> Path:
        """The workspace, or ``fallback`` (the working directory) off a runner."""
        return Path(self.workspace or fallback)

    @property
    def step_summary(self) -> str:
        """The step summary file's path, ``""`` when the job has none."""
        return self.file_commands.get(STEP_SUMMARY_VAR, "")

    @property
    def output_file(self) -> str:
        """The step outputs file's path, ``""`` when the job has none."""
        return self.file_commands.get(OUTPUT_VAR, "")

    @property
    def run_url(self) -> str | None:
        """This run's page, when the runner says which run it is."""
        if not (self.repository and self.run_id):
            return None
        return f"{self.server}/{self.repository}/actions/runs/{self.run_id}"
