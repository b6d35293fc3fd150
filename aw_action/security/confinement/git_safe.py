"""Git that the harness runs on a repository the agent (or a fork) controls: nothing in the
repository may make it run a program.

``GIT_EXECUTION`` is the one table of git features that run programs (git-config(1),
githooks(5), gitattributes(5), git(1) "ENVIRONMENT VARIABLES") and how each is shut off:
``harness_argv`` puts every row's ``-c`` overrides on the command line (command-line config
wins over the repository's, included files too) and ``harness_env`` builds the environment
(every ``GIT_*`` variable of the caller dropped, then the rows' variables set). Some features
cannot be shut off by name (a filter driver's or a config hook's name is the repository's
choice): the row says what covers them (the patch writes through a private git dir that reads
none of the repository's config, ``safe_outputs/patch.py``), and the last line of defence is
that this git runs as the tools' user, with the tools' environment, inside the kernel sandbox
(``security/confinement/spawn.py``): whatever still runs gets nothing the agent does not already have.
"""

from __future__ import annotations

from collections.abc import Mapping

from aw_action.lazy_dataclass import dataclass


@dataclass(frozen=True)
class GitExecution:
    feature: str
    runs: str
    shut_off: str
    config: tuple[tuple[str, str], ...] = ()
    env: tuple[tuple[str, str], ...] = ()


PROTOCOLS = ("file", "git", "ssh", "http", "https", "ext", "fd")

GIT_EXECUTION: tuple[GitExecution, ...] = (
    GitExecution(
        "core.fsmonitor",
        "a hook on every index refresh (status, add, diff, ...)",
        "core.fsmonitor=false",
        (("core.fsmonitor", "false"),),
    ),
    GitExecution(
        "hooks ($GIT_DIR/hooks, core.hooksPath)",
        "githooks(5): pre-commit, post-index-change, reference-transaction, pre-auto-gc, ...",
        "core.hooksPath=/dev/null",
        (("core.hooksPath", "/dev/null"),),
    ),
    GitExecution(
        "hook.<name>.command (config-defined hooks, git 2.54+)",
        "a command on the events hook.<name>.event names",
        "no name to override: the commands run on the repository fire no hook event; the patch "
        "writes through a private git dir without the repository's config",
    ),
    GitExecution(
        "filter.<driver>.clean/smudge/process",
        "on add (clean), checkout (smudge); the driver is named by .gitattributes",
        "no name to override: the patch's add runs in a private git dir (no filter is configured there)",
    ),
    GitExecution(
        "diff.external, diff.<driver>.command, GIT_EXTERNAL_DIFF",
        "an external diff program for diff, log -p, format-patch",
        "diff.external= and GIT_EXTERNAL_DIFF dropped; format-patch --no-ext-diff; drivers: the private git dir",
        (("diff.external", ""),),
    ),
    GitExecution(
        "diff.<driver>.textconv",
        "a converter for diffs of the files .gitattributes names",
        "format-patch --no-textconv; drivers: the private git dir",
    ),
    GitExecution(
        "core.pager, pager.<command>, GIT_PAGER, PAGER",
        "a pager when output is a terminal",
        "core.pager=cat, GIT_PAGER=cat, PAGER=cat (output is never a terminal here)",
        (("core.pager", "cat"),),
        (("GIT_PAGER", "cat"), ("PAGER", "cat")),
    ),
    GitExecution(
        "core.editor, sequence.editor, GIT_EDITOR, VISUAL, EDITOR",
        "an editor for messages",
        "core.editor=true, GIT_EDITOR=true (commit-tree reads its message from stdin)",
        (("core.editor", "true"), ("sequence.editor", "true")),
        (("GIT_EDITOR", "true"),),
    ),
    GitExecution(
        "transports: core.sshCommand, GIT_SSH(_COMMAND), core.gitProxy, remote.<name>.uploadpack, ext::, "
        "a partial clone's lazy fetch",
        "a program to reach a remote, also to fetch missing objects",
        "no transport at all: protocol.<each>.allow=never, GIT_ALLOW_PROTOCOL=none, GIT_NO_LAZY_FETCH=1",
        (("protocol.allow", "never"), *((f"protocol.{p}.allow", "never") for p in PROTOCOLS)),
        (("GIT_ALLOW_PROTOCOL", "none"), ("GIT_NO_LAZY_FETCH", "1")),
    ),
    GitExecution(
        "credential.helper, core.askPass, GIT_ASKPASS, SSH_ASKPASS",
        "a program that supplies credentials",
        "credential.helper= (empties the list), core.askPass=, GIT_TERMINAL_PROMPT=0",
        (("credential.helper", ""), ("core.askPass", "")),
        (("GIT_TERMINAL_PROMPT", "0"),),
    ),
    GitExecution(
        "core.alternateRefsCommand",
        "a command listing an alternate's refs",
        "core.alternateRefsCommand=",
        (("core.alternateRefsCommand", ""),),
    ),
    GitExecution(
        "gpg.program, gpg.<format>.program, commit.gpgSign, log.showSignature",
        "gpg/ssh-keygen to sign or verify",
        "commit.gpgSign=false, log.showSignature=false; commit-tree --no-gpg-sign",
        (("commit.gpgSign", "false"), ("log.showSignature", "false")),
    ),
    GitExecution(
        "gc.auto, maintenance.auto",
        "git gc / maintenance in the background after some commands",
        "gc.auto=0, maintenance.auto=false",
        (("gc.auto", "0"), ("maintenance.auto", "false")),
    ),
    GitExecution(
        "submodules (diff.submodule=log, submodule.recurse)",
        "git in a submodule, with the submodule's own config",
        "diff.submodule=short, submodule.recurse=false",
        (("diff.submodule", "short"), ("submodule.recurse", "false")),
    ),
    GitExecution(
        "include.path, includeIf",
        "nothing by itself: another config file, which may set any key above",
        "every key above is set on the command line, which wins over every file",
    ),
    GitExecution(
        "system and global config (uploadpack.packObjectsHook, trace2.*, ...)",
        "keys only trusted from there; the runner's ~/.gitconfig is the agent's to write",
        "GIT_CONFIG_NOSYSTEM=1, GIT_CONFIG_GLOBAL=/dev/null",
        env=(("GIT_CONFIG_NOSYSTEM", "1"), ("GIT_CONFIG_GLOBAL", "/dev/null")),
    ),
    GitExecution(
        "GIT_EXEC_PATH, GIT_DIR, GIT_TRACE*, GIT_CONFIG_PARAMETERS and every other GIT_* variable",
        "helpers from another folder, another repository, trace files",
        "every GIT_* variable of the caller is dropped",
    ),
    GitExecution(
        "alias.<name> = !command",
        "a shell command when the alias is run",
        "not reachable: the harness runs built-in commands only, which an alias never shadows",
    ),
)


def harness_argv(
    args: list[str], *, safe_directory: str | None = None, extra: tuple[tuple[str, str], ...] = ()
) -> list[str]:
    """``git`` with every ``-c`` of the table (and ``extra``, which must run nothing), then
    ``args``. ``safe_directory``: a repository owned by another user that this git may open (git
    trusts the key only from the command line, the global or the system config)."""
    config = [item for row in GIT_EXECUTION for item in row.config]
    if safe_directory is not None:
        config.append(("safe.directory", safe_directory))
    config.extend(extra)
    return ["git", "--no-pager", *(part for key, value in config for part in ("-c", f"{key}={value}")), *args]


def harness_env(base: Mapping[str, str], **extra: str) -> dict[str, str]:
    """``base`` without any ``GIT_*`` variable, plus the table's variables and ``extra``."""
    env = {k: v for k, v in base.items() if not k.startswith("GIT_") and k not in ("PAGER", "EDITOR", "VISUAL")}
    env.update(kv for row in GIT_EXECUTION for kv in row.env)
    env.pop("SSH_ASKPASS", None)
    env.update(extra)
    return env
