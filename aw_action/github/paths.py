"""Where the action writes its files, and how a later step of the job finds them.

A container action sees the runner's folders under other names, and only some of them at all
(actions/runner ``ContainerActionHandler``): the workspace is ``/github/workspace``; since runner
2.328 (PR #4011) the runner temp folder is mounted at ``/github/runner_temp`` and ``RUNNER_TEMP``
says so. Older runners leave ``RUNNER_TEMP`` as a host path the container cannot see, and act
sets ``RUNNER_TEMP=/tmp``, the action container's own; files written there vanish with the
container. So:

- the default output folder is ``$RUNNER_TEMP/aw-harness`` when ``RUNNER_TEMP`` is the runner's
  mount or when the action runs on the host itself (the CLI, tests), else ``.aw-harness`` in the
  workspace, which every step sees (it holds a ``.gitignore`` of ``*``, so a later
  ``git add -A`` leaves it out);
- a path given in an output is one a later step can open: relative to the workspace when inside
  it (steps start there), the host path of the runner temp folder when under its mount (the
  runner keeps ``RUNNER_WORKSPACE`` as a host path, and its temp folder is the sibling ``_temp``
  of that folder: ``HostContext`` ``WellKnownDirectory.Temp`` is ``<work>/_temp`` and
  ``runner.workspace`` is ``<work>/<repository>``), else as it is;
- a path a step gave this one that names the runner host's workspace or temp folder (a
  credentials file an earlier step exported) is opened where the container sees it
  (``container_path``, ``container_credential_files``).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path, PurePosixPath

from aw_action.ai.credentials import credential_file_variables
from aw_action.environment.runner import RunnerFacts

RUNNER_TEMP_MOUNT = "/github/runner_temp"
"""Where the runner (>= 2.328) mounts its temp folder in a container action."""
CONTAINER_WORKSPACE = "/github/workspace"
"""The workspace as every runner mounts it in a container action."""
WORKSPACE_OUTPUT_DIR = ".aw-harness"
"""The default output folder, in the workspace, when the runner temp folder is not shared."""
OUTPUT_SUBDIR = "aw-harness"


def runner_temp_is_shared(runner: RunnerFacts) -> bool:
    """True when ``RUNNER_TEMP`` is a folder later steps of the job see as well.

    It is not in a container action on a runner older than 2.328 (the workspace is mounted, the
    temp folder is not) nor under act (``ACT=true``; ``RUNNER_TEMP`` is ``/tmp`` in the action's
    own container).
    """
    if not runner.runner_temp:
        return False
    if runner.runner_temp == RUNNER_TEMP_MOUNT:
        return True
    return not runner.act and runner.workspace != CONTAINER_WORKSPACE


def default_output_dir(runner: RunnerFacts, workspace: Path) -> Path | None:
    """The output folder when the ``output-dir`` input is empty; None outside any runner."""
    if runner_temp_is_shared(runner):
        return Path(runner.runner_temp) / OUTPUT_SUBDIR
    if runner.runner_temp or runner.actions:
        return workspace / WORKSPACE_OUTPUT_DIR
    return None


def keep_out_of_git(folder: Path, workspace: Path) -> None:
    """A folder the action made inside the workspace gets a ``.gitignore`` of ``*``."""
    if folder.name != WORKSPACE_OUTPUT_DIR or folder.parent != workspace:
        return
    ignore = folder / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# written by aw-harness: its run files are not part of the repository\n*\n")


def host_runner_temp(runner: RunnerFacts) -> PurePosixPath | None:
    """The runner temp folder's path on the runner host, when it can be known from inside."""
    if runner.runner_temp != RUNNER_TEMP_MOUNT:
        return None
    workspace = runner.runner_workspace
    if not workspace.startswith("/") or workspace.rstrip("/") in ("", "/"):
        return None
    return PurePosixPath(workspace.rstrip("/")).parent / "_temp"


def visible_path(path: Path, runner: RunnerFacts, workspace: Path) -> str:
    """``path`` as a later step of the job can open it (see the module docstring)."""
    resolved = path.resolve()
    try:
        return resolved.relative_to(workspace.resolve()).as_posix()
    except ValueError:
        pass
    host_temp = host_runner_temp(runner)
    if host_temp is not None:
        try:
            return str(host_temp / resolved.relative_to(RUNNER_TEMP_MOUNT))
        except ValueError:
            pass
    return str(path)


def host_workspace(runner: RunnerFacts) -> PurePosixPath | None:
    """The workspace's path on the runner host, inside a container action: ``GITHUB_WORKSPACE``
    on the host is ``<work>/<repository>/<repository>`` and the runner keeps ``RUNNER_WORKSPACE``
    (``<work>/<repository>``) as a host path."""
    if runner.workspace != CONTAINER_WORKSPACE:
        return None
    workspace = runner.runner_workspace.rstrip("/")
    if not workspace.startswith("/") or workspace in ("", "/"):
        return None
    return PurePosixPath(workspace) / PurePosixPath(workspace).name


def container_path(value: str, runner: RunnerFacts, workspace: Path) -> Path:
    """``value`` as this process can open it: relative to the workspace, and a host path under
    the runner temp folder or the workspace (a path a step before this one wrote, such as the
    credentials file google-github-actions/auth exports) moved to where the runner mounts it."""
    path = Path(value).expanduser()
    if not path.is_absolute():
        return workspace / path
    if path.exists():
        return path
    for host, mount in ((host_runner_temp(runner), Path(RUNNER_TEMP_MOUNT)), (host_workspace(runner), workspace)):
        if host is not None:
            try:
                return mount / PurePosixPath(path).relative_to(host)
            except ValueError:
                pass
    return path


def container_credential_files(env: Mapping[str, str], runner: RunnerFacts, workspace: Path) -> dict[str, str]:
    """The credential variables that name a file (``GOOGLE_APPLICATION_CREDENTIALS``) whose value
    is a runner host path, each with the path this container opens instead; the file is then
    read by provider setup and withheld from the tools there (``harness/guards.py``)."""
    out: dict[str, str] = {}
    for name, value in credential_file_variables(env).items():
        mapped = str(container_path(value, runner, workspace))
        if mapped != value:
            out[name] = mapped
    return out
