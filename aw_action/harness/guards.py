"""The security layer wired into a run (docs/security.md): who the tools run as, what they see,
what they can touch, and the check at the end.

- ``harden_process()``: first thing in every entry point (CLI run, action, gh-aw step): the
  process becomes non-dumpable and the child subreaper of everything the agent starts.
- ``guard_run(...)``: once per run, from ``context.assemble``, before any tool exists:
  1. the confinement, asked for once (``sandbox_setup.confine``: one ``ConfinementPlan`` from
     ``security/confinement/plan.py``): the tools' user, their process bound and the kernel
     sandbox; a read-only sandbox the kernel cannot enforce refuses the run (exit 2) before
     anything changed; a root-owned workspace is then handed over to the tools' user for the run;
  2. the output dir is protected (owned by the harness, read-only for the tools) when tools run
     as another uid; otherwise, on a runner, a warning says what does not hold (``on_a_runner``);
  3. GitHub access: granted only when the config writes ``tools.github``; the summary says so;
  4. the job's file commands (``GITHUB_ENV``, ...) are snapshotted and a ``RecordLedger`` is
     opened for the output dir;
  4b. a credentials file the environment names (``GOOGLE_APPLICATION_CREDENTIALS``) is kept from
     the tools for the run (``security/confinement/credential_files.py``) when they run as another user;
     otherwise a warning says it is within their reach;
  5. the plan's ``sandbox`` record and summary line (``sandbox_setup.announce``).
- ``RunGuards.tool_env(...)``: the tools' environment (``security/confinement/tool_env.py``'s allow-list:
  the core set, the toolchain's, what the config grants by name (``env_grant``, named in the
  summary's access note); no credential, unless GitHub access is granted; then
  ``GITHUB_TOKEN``/``GH_TOKEN`` only; ``TMPDIR`` the run's private folder);
  ``RunGuards.wipe(...)``: the credentials' values wiped from the process's initial environment
  block (entry points only). ``RunGuards.tools`` / ``step_tools(...)``: the tools' sandbox for
  the run and for a workflow step.
- ``RunGuards.seal(journal)``: once, after every agent process is dead and before the summary
  and outputs are written: withheld credentials files and a handed-over workspace are given back, the private
  ``TMPDIR`` removed, the file commands restored and the ledger verified; each finding is a
  warning and makes the run degraded.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterable, Mapping
from dataclasses import field
from pathlib import Path

from aw_action.agent.events import HarnessEvent
from aw_action.ai.credentials import credential_file_variables, github_access_variables
from aw_action.environment.runner import RunnerFacts
from aw_action.environment.tuning import OUTPUT_DIR
from aw_action.exits import InvocationError, Setting
from aw_action.harness.sandbox_setup import announce, confine
from aw_action.lazy_dataclass import dataclass
from aw_action.run import record_table
from aw_action.run.config import RunConfig
from aw_action.run.journal import Journal
from aw_action.run.record import AccessNote, RunRecord
from aw_action.security.confinement.containment import end_agent_processes, end_holder_processes, left_behind
from aw_action.security.confinement.credential_files import WithheldFile, give_back, unopenable, withhold
from aw_action.security.confinement.identity import (
    HandedOver,
    IdentityDecision,
    ToolIdentity,
    hand_over_workspace,
    secret_holder,
)
from aw_action.security.confinement.plan import ConfinementPlan
from aw_action.security.confinement.process_guard import GuardReport, make_non_dumpable, wipe_initial_environ
from aw_action.security.confinement.sandbox import ToolSandbox
from aw_action.security.confinement.tool_env import GithubAccess, credential_free, github_access, tool_environment
from aw_action.security.records.file_commands import FileCommandGuard
from aw_action.security.records.record_guard import RecordLedger, Tamper, protect_output_dir
from aw_action.tools import FILE_WRITERS
from aw_action.tools.processes import enable_subreaper, kill_all_agent_processes

_process: dict[str, GuardReport] = {}
"""The entry point's ``harden_process`` report; empty when no entry point hardened this process
(a test assembling runs in-process): then the initial environment is left alone."""
ISOLATION_CHECK = "tool-isolation"
"""The ``check`` field of the warning that says tools are not isolated from the harness."""
RECORDS_HINT = "the run's records were changed by something other than the harness: do not trust them"
FILE_COMMANDS_HINT = "the agent wrote the job's file commands; they were restored, review what it ran"
PROCESSES_HINT = "a process the agent started could not be killed: later steps of the job may share its machine"


def harden_process() -> GuardReport:
    """Non-dumpable and child subreaper; idempotent. Call it before reading any input."""
    report = _process.get("dumpable") or make_non_dumpable()
    _process["dumpable"] = report
    enable_subreaper()
    return report


def on_a_runner(runner: RunnerFacts) -> bool:
    """Where the tools are meant to be isolated from the harness: on a runner (``GITHUB_ACTIONS``:
    the container action, gh-aw's agent step, the CLI in a job), a run whose tools are not is
    warned (``tool-isolation``). On the user's own machine the tools run as the user who started
    the run, as that user chose: the record's security note says so, without a warning."""
    return runner.actions


def github_grant(config: RunConfig) -> GithubAccess:
    """``tools.github`` as the config wrote it: absent means no access (the default is not a grant)."""
    if "github" not in config.tools.model_fields_set:
        return github_access(None)
    return github_access(config.tools.github.model_dump(by_alias=True))


def github_note(github: GithubAccess, env: Mapping[str, str]) -> str:
    """The summary's line for a granted GitHub access, true to what the tools get: a grant with
    no token set (a replay's commands never get one) gives them none."""
    if any(env.get(name) for name in github_access_variables()):
        return f"GitHub access granted: {github.reason}."
    return (
        "No GitHub access: the config grants it (tools.github), but this run has no GitHub token, "
        "so the tools see none (a replay's commands never get one)."
    )


def env_grant(config: RunConfig) -> tuple[str, ...]:
    """The variables the config grants the tools: ``tools.pass-env`` and the names
    ``tools.bash-variables`` lets a command spell (both checked when the config was read)."""
    return tuple(dict.fromkeys([*config.tools.pass_env, *config.tools.bash_variables]))


@dataclass
class RunGuards:
    plan: ConfinementPlan
    """The tools' user, their process bound and sandbox (``security/confinement/plan.py``)."""
    github: GithubAccess
    ledger: RecordLedger
    file_commands: FileCommandGuard
    handed_over: HandedOver | None = None
    """A root-owned workspace lent to the tools' user; given back at the seal."""
    withheld: list[WithheldFile] = field(default_factory=list)
    """Credentials files taken from the tools for the run; given back at the seal."""
    post: Callable[[HarnessEvent], None] = lambda event: None
    """Where the ``processes`` record of the seal goes."""
    notes: list[AccessNote] = field(default_factory=list)
    """The record's security notes (the summary's "Agent access"): the seal adds to them."""
    env_grant: tuple[str, ...] = ()
    """The variables the config grants the tools beyond the core set (``tool_env.py``)."""
    sealed: bool = field(default=False, init=False)

    @property
    def decision(self) -> IdentityDecision:
        return self.plan.decision

    @property
    def identity(self) -> ToolIdentity | None:
        return self.plan.decision.identity

    @property
    def tools(self) -> ToolSandbox:
        """The tools' sandbox outside any workflow step."""
        return self.plan.tools

    def step_tools(self, bash_mode: str, tools: Iterable[str]) -> ToolSandbox:
        """A workflow step's (``ConfinementPlan.step_tools``): the file tools are read-only when
        the step grants none of ``FILE_WRITERS``."""
        return self.plan.step_tools(bash_mode, files_read_only=not FILE_WRITERS & set(tools))

    def tool_env(self, env: Mapping[str, str], secrets: Iterable[str], output_dir: Path) -> dict[str, str]:
        """The tools' environment: never empty (an empty one would mean "inherit the harness's")."""
        out = tool_environment(env, github=self.github, secrets=secrets, grant=self.env_grant)
        out = self.identity.environment(out) if self.identity is not None else out
        out[OUTPUT_DIR.name] = str(output_dir)
        tmpdir = self.plan.sandbox.tmpdir
        out.update(TMPDIR=tmpdir, TMP=tmpdir, TEMP=tmpdir)
        return out

    def wipe(self, secrets: Iterable[str]) -> GuardReport | None:
        """Wipe from the initial environment block every variable the tools may not see (the
        GitHub token included: tools that are granted it get it through their own environment).
        Only in a process an entry point hardened; ``None`` otherwise."""
        if not _process:
            return None
        kept = credential_free(os.environ, secrets=secrets)
        return wipe_initial_environ([name for name in os.environ if name not in kept])

    def seal(self, journal: Journal) -> None:
        """The run's end, in order and once: every agent process killed (one that will not die is
        named and the run is degraded), then a handed-over workspace given back, the file
        commands restored (content and mode) and the records verified. Call it before the
        summary and outputs."""
        if self.sealed:
            return
        self.sealed = True
        try:
            self.end_processes(journal)
        except Exception as exc:  # the file commands are restored whatever happened here
            journal.warn(f"could not end the agent's processes: {type(exc).__name__}: {exc}")
            journal.degrade("processes", f"not ended: {exc}", PROCESSES_HINT)
        try:
            self._seal(journal)
        except Exception as exc:  # a check that fails must not lose the run's result
            journal.warn(f"could not check the run's records and file commands: {type(exc).__name__}: {exc}")
            journal.degrade("records", f"not checked: {exc}", RECORDS_HINT)

    def end_processes(self, journal: Journal) -> None:
        """Kill every agent process (``kill(-1)`` as the tools' user where the containment allows
        it, and as the secret holder when an MCP server runs as it, then the ``/proc`` scan of
        every descendant of the harness, whatever its uid), name any of either uid left alive,
        post the ``processes`` record."""
        containment = self.plan.containment
        ending = end_agent_processes(containment, self.identity)
        holder = secret_holder(self.identity)  # an MCP server given variables runs as it
        held = end_holder_processes(holder)
        signalled = kill_all_agent_processes(deadline_s=1.0 if ending.method == "kill-uid" else 3.0)
        left = left_behind(containment.uid) + (left_behind(holder.uid) if holder is not None else ())
        fields: dict[str, object] = {"method": ending.method, "scan_signalled": signalled, "left": list(left)}
        if held is not None:
            fields["secret_holder"] = held.method if not held.note else f"{held.method}: {held.note}"
        if containment.limit:
            fields.update(process_limit=containment.limit, process_budget=containment.budget)
        if ending.note:
            fields["best_effort"] = ending.note
        self.post(HarnessEvent("processes", fields))
        if ending.method != containment.method:  # said in the summary; a stranger is no finding of the run's
            self.notes.append(AccessNote(f"Processes: ended best effort at the run's end: {ending.note}.", True))
        if left:
            detail = f"still alive after the kill: {', '.join(left)}"
            journal.warn(f"agent processes {detail}")
            journal.degrade("processes", detail, PROCESSES_HINT)

    def _seal(self, journal: Journal) -> None:
        for problem in give_back(self.withheld):  # first: a handed-over workspace then returns it to its owner
            journal.warn(f"a credentials file could not be given back as it was: {problem}")
        if self.handed_over is not None:
            self.handed_over.give_back()
        shutil.rmtree(self.plan.sandbox.tmpdir, ignore_errors=True)
        changed = self.file_commands.restore()
        if changed:
            detail = f"the agent changed {', '.join(changed)}; restored to what they held before the run"
            journal.warn(f"file commands: {detail}")
            journal.degrade("file-commands", detail, FILE_COMMANDS_HINT)
        tampered = self.ledger.verify()
        if tampered:
            detail = "; ".join(_named(t, self.ledger.directory) for t in tampered)
            journal.warn(f"records tampered with: {detail}")
            journal.degrade("records", f"tampered with: {detail}", RECORDS_HINT)


def guard_run(
    config: RunConfig,
    *,
    env: Mapping[str, str],
    workspace: Path,
    output_dir: Path,
    record: RunRecord,
    journal: Journal,
    post: Callable[[HarnessEvent], None] = lambda event: None,
    read_only_steps: list[str] | None = None,
    runner: RunnerFacts | None = None,
) -> RunGuards:
    """Decide and apply the run's guards (see the module docstring); ``output_dir`` exists.
    ``read_only_steps``: a workflow's steps whose bash policy is read-only (they need Landlock).
    ``runner``: the entry point's record of the runner's facts (read from ``env`` when not given).
    ``post`` carries the ``sandbox`` record. ``InvocationError`` when a read-only sandbox
    cannot be enforced."""
    report = _process.get("dumpable")
    if report is not None and not report.applied:
        journal.warn(f"the harness stays dumpable: {report.detail}")
    steps = list(read_only_steps or [])
    plan = confine(config, env=env, workspace=workspace, output_dir=output_dir, journal=journal, read_only_steps=steps)
    decision = plan.decision
    as_root = decision.identity is None and os.geteuid() == 0  # the "Unprotected" line says so
    weaker_ending = plan.containment.method != "kill-uid" and decision.identity is not None
    record.security_notes.append(AccessNote(plan.containment.describe(cause=not as_root), weaker_ending))
    handed_over = None
    if decision.hand_over_workspace and decision.identity is not None:
        handed_over = hand_over_workspace(workspace, decision.identity)
    contains_workspace = workspace.resolve().is_relative_to(output_dir.resolve())
    if decision.protected and contains_workspace:
        journal.warn(f"the output dir {output_dir} holds the workspace: not protected (choose another output-dir)")
        record.security_notes.append(AccessNote("Unprotected records: the output dir holds the workspace.", True))
    elif decision.protected:
        protect_output_dir(output_dir)
        if config.safe_outputs and decision.identity is not None:
            _agent_records_file(output_dir / record_table.SAFE_OUTPUTS.name, decision.identity)
    else:
        on_runner = on_a_runner(runner or RunnerFacts.read(env))
        if on_runner:
            journal.warn(_unprotected(decision), check=ISOLATION_CHECK)
        if os.geteuid() == 0 or not on_runner:  # on one's own machine: as that user chose, not weaker
            record.security_notes.append(AccessNote(f"Unprotected: {decision.reason}.", on_runner))
    withheld = _withhold_credential_files(env, decision, journal)
    github = github_grant(config)
    if github.granted:
        record.security_notes.append(AccessNote(github_note(github, env)))
    grant = env_grant(config)
    if grant:
        record.security_notes.append(AccessNote(f"Environment granted to the tools by the config: {', '.join(grant)}."))
    guards = RunGuards(
        plan,
        github,
        RecordLedger(output_dir),
        FileCommandGuard.snapshot(env),
        handed_over,
        withheld,
        post,
        record.security_notes,
        grant,
    )
    announce(plan, record, post)
    return guards


def _withhold_credential_files(
    env: Mapping[str, str], decision: IdentityDecision, journal: Journal
) -> list[WithheldFile]:
    """The credentials files ``env`` names, kept from the tools when a file mode can do it. A
    file a set variable names that cannot be opened, or cannot be withheld, is an
    ``InvocationError`` naming the variable (exit 2, before any command): never a warning while
    the file may stay within the tools' reach."""
    named = credential_file_variables(env)
    for name, path in named.items():
        problem = unopenable(path)
        if problem is not None:
            raise InvocationError(
                f"{name}={path}: cannot open the credentials file it names ({problem}); set it to a path this "
                "process can open (in the container action: under the workspace or runner.temp)",
                Setting(name, "variable"),
            )
    paths = list(named.values())
    if not paths:
        return []
    if not decision.protected:
        journal.warn(f"credentials file {', '.join(paths)} is within the tools' reach: they run as the harness's user")
        return []
    withheld, problems = withhold(paths)
    if problems:
        give_back(withheld)
        raise InvocationError(f"a credentials file could not be kept from the tools: {'; '.join(problems)}")
    return withheld


def _agent_records_file(path: Path, identity: ToolIdentity) -> None:
    """``safe-outputs.jsonl`` holds the agent's proposals (checked when applied, never trusted):
    the tools' user may append to it with ``aw-harness safe-output``, so it is created theirs.
    It is not a record of the harness (not in the ledger); nothing else in the dir is theirs."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    try:
        os.fchown(fd, identity.uid, identity.gid)
    finally:
        os.close(fd)


def _named(tamper: Tamper, directory: Path) -> str:
    """``session.jsonl: appended (...)``: file names relative to the output dir."""
    path = Path(tamper.path)
    name = path.relative_to(directory).as_posix() if path.is_relative_to(directory) and path != directory else str(path)
    return f"{name}: {tamper.what} ({tamper.detail})"


def _unprotected(decision: IdentityDecision) -> str:
    return (
        f"tools are not isolated from the harness ({decision.reason}): the output dir stays writable for "
        "them (tampering is detected at the end, not prevented) and whatever this user can read is within "
        "the agent's reach (docs/security.md)"
    )
