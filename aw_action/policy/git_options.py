"""git's options as git 2.39 reads them: global options before the subcommand (``git.c``
``handle_options``: exact names, no clusters), then the subcommand's own.

Subcommands built on parse-options (grep, status, ls-files, clone, fetch, pull, push, ls-remote,
rebase, init) accept unique prefixes and ``--no-`` forms (``parse-options.c`` ``parse_long_opt``);
their tables are complete, taken from ``git <cmd> --git-completion-helper-all`` and ``--help-all``.
diff/log/show parse with ``PARSE_OPT_KEEP_UNKNOWN_OPT``, which turns abbreviation off, except
``git diff --no-index``, which abbreviates: their table lists the options whose values are
separate words and the refused ones, and refuses every prefix of those.
Any other subcommand is read with a generic table of options that run programs wherever they
appear. A subcommand git does not ship (an alias, a ``git-<name>`` on PATH) is refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from aw_action.policy.options import Normalised, OptionSpec, Token, normalise, table

_CONFIG = "sets configuration, which can make git run programs (core.pager, core.fsmonitor, diff.external)"
_ELSEWHERE = "points git at another repository, whose configuration can make git run programs"
_TEXTCONV = "runs the textconv filters the repository's configuration names"
_UPLOAD = "runs its value as the remote side's program"

GLOBAL = table(
    "git",
    """-v|--version -h|--help -C= -c= --config-env= --exec-path[=] --html-path --man-path --info-path
    -p|--paginate -P|--no-pager --no-replace-objects --bare --git-dir= --work-tree= --namespace=
    --super-prefix= --literal-pathspecs --glob-pathspecs --noglob-pathspecs --icase-pathspecs
    --no-optional-locks --list-cmds=""",
    {
        "-c": _CONFIG,
        "--config-env": _CONFIG,
        "-C": _ELSEWHERE,
        "--git-dir": _ELSEWHERE,
        "--work-tree": _ELSEWHERE,
        "--bare": _ELSEWHERE,
        "--super-prefix": _ELSEWHERE,
        "--exec-path": "changes where git finds the programs it runs",
        "--paginate": "runs the pager",
        "--help": "opens documentation with a viewer program the configuration can choose",
    },
    abbreviations=False,
)

GREP = table(
    "git grep",
    """--cached --no-index --untracked --exclude-standard --recurse-submodules -v|--invert-match
    -i|--ignore-case -w|--word-regexp -a|--text -I --textconv -r|--recursive --max-depth=
    -E|--extended-regexp -G|--basic-regexp -F|--fixed-strings -P|--perl-regexp -n|--line-number --column
    -h -H --full-name -l|--files-with-matches --name-only -L|--files-without-match -z|--null
    -o|--only-matching -c|--count --color[=] --break --heading -C|--context= -B|--before-context=
    -A|--after-context= --threads= -p|--show-function -W|--function-context -f= -e= --and --or --not
    -q|--quiet --all-match -O|--open-files-in-pager[=] --ext-grep -m|--max-count= --index""",
    {
        "--open-files-in-pager": "opens the matching files in a pager (its value is run as a command)",
        "--textconv": _TEXTCONV,
    },
    negations=True,
    digits=True,
)
STATUS = table(
    "git status",
    """-v|--verbose -s|--short -b|--branch --show-stash --ahead-behind --porcelain[=] --long -z|--null
    -u|--untracked-files[=] --ignored[=] --ignore-submodules[=] --column[=] --no-renames
    -M|--find-renames[=] --renames""",
    negations=True,
)
LS_FILES = table(
    "git ls-files",
    """-z -t -v -f -c|--cached -d|--deleted -m|--modified -o|--others -i|--ignored -s|--stage -k|--killed
    --directory --eol --empty-directory -u|--unmerged --resolve-undo -x|--exclude= -X|--exclude-from=
    --exclude-per-directory= --exclude-standard --full-name --recurse-submodules --error-unmatch
    --with-tree= --abbrev[=] --debug --deduplicate --sparse --format=""",
    negations=True,
)
_DIFF = """-p|--patch -s|--no-patch -u -U|--unified[=] -W|--function-context --raw --patch-with-raw
    --patch-with-stat --numstat --shortstat -X|--dirstat[=] --cumulative --dirstat-by-file[=] --check
    --summary --name-only --name-status --stat[=] --stat-width= --stat-name-width= --stat-graph-width=
    --stat-count= --compact-summary --binary --full-index --color[=] --ws-error-highlight= -z --abbrev[=]
    --src-prefix= --dst-prefix= --line-prefix= --no-prefix --inter-hunk-context= --output-indicator-new=
    --output-indicator-old= --output-indicator-context= -B|--break-rewrites[=] -M|--find-renames[=]
    -D|--irreversible-delete -C|--find-copies[=] --find-copies-harder --no-renames --rename-empty --follow
    -l= --minimal -w|--ignore-all-space -b|--ignore-space-change --ignore-space-at-eol --ignore-cr-at-eol
    --ignore-blank-lines -I|--ignore-matching-lines= --indent-heuristic --patience --histogram
    --diff-algorithm= --anchored= --word-diff[=] --word-diff-regex= --color-words[=] --color-moved[=]
    --color-moved-ws= --relative[=] -a|--text -R --exit-code --quiet --ext-diff --textconv
    --ignore-submodules[=] --submodule[=] --ita-invisible-in-index --ita-visible-in-index -S= -G=
    --pickaxe-all --pickaxe-regex -O= --rotate-to= --skip-to= --find-object= --diff-filter= --output=
    --no-index"""
_REVISIONS = """-L= -n|--max-count= --skip= --since= --after= --until= --before= --min-age= --max-age=
    --author= --committer= --grep= --grep-reflog= --exclude= --glob= --encoding= --date=
    --decorate[=] --decorate-refs= --decorate-refs-exclude= --since-as-filter= --show-signature"""
DIFF_LOG_REFUSED = {
    "--output": "writes a file",
    "--ext-diff": "runs the external diff program the configuration names",
    "--textconv": _TEXTCONV,
    "--show-signature": "runs gpg (gpg.program)",
}
_DIFF_LOG = f"{_DIFF} {_REVISIONS}"

CLONE = table(
    "git clone",
    """-v|--verbose -q|--quiet --progress --reject-shallow -n|--no-checkout --bare --naked --mirror
    -l|--local --no-hardlinks -s|--shared --recurse-submodules[=] --recursive[=] -j|--jobs= --template=
    --reference= --reference-if-able= --dissociate -o|--origin= -b|--branch= -u|--upload-pack= --depth=
    --shallow-since= --shallow-exclude= --single-branch --no-tags --shallow-submodules
    --separate-git-dir= -c|--config= --server-option= -4|--ipv4 -6|--ipv6 --filter=
    --also-filter-submodules --remote-submodules --sparse --bundle-uri= --checkout --hardlinks --tags""",
    {
        "--upload-pack": _UPLOAD,
        "--template": "installs hooks from a directory, which run during the clone",
        "--config": _CONFIG,
    },
    negations=True,
)
FETCH = table(
    "git fetch",
    """-v|--verbose -q|--quiet --all --set-upstream -a|--append --atomic --upload-pack= -f|--force
    -m|--multiple -t|--tags -n -j|--jobs= --prefetch -p|--prune -P|--prune-tags --recurse-submodules[=]
    --dry-run --write-fetch-head -k|--keep -u|--update-head-ok --progress --depth= --shallow-since=
    --shallow-exclude= --deepen= --unshallow --refetch --submodule-prefix= --recurse-submodules-default=
    --update-shallow --refmap= -o|--server-option= -4|--ipv4 -6|--ipv6 --negotiation-tip=
    --negotiate-only --filter= --auto-maintenance --auto-gc --show-forced-updates --write-commit-graph
    --stdin""",
    {"--upload-pack": _UPLOAD},
    negations=True,
)
PULL = table(
    "git pull",
    """-v|--verbose -q|--quiet --progress --recurse-submodules[=] -r|--rebase[=] -n --stat --summary
    --log[=] --signoff[=] --squash --commit --edit --cleanup= --ff --ff-only --verify
    --verify-signatures --autostash -s|--strategy= -X|--strategy-option= -S|--gpg-sign[=]
    --allow-unrelated-histories --all -a|--append --upload-pack= -f|--force -t|--tags -p|--prune
    -j|--jobs[=] --dry-run -k|--keep --depth= --shallow-since= --shallow-exclude= --deepen= --unshallow
    --update-shallow --refmap= -o|--server-option= -4|--ipv4 -6|--ipv6 --negotiation-tip=
    --show-forced-updates --set-upstream""",
    {"--upload-pack": _UPLOAD},
    negations=True,
)
PUSH = table(
    "git push",
    """-v|--verbose -q|--quiet --repo= --all --mirror -d|--delete --tags -n|--dry-run --porcelain
    -f|--force --force-with-lease[=] --force-if-includes --recurse-submodules= --thin --receive-pack|--exec=
    -u|--set-upstream --progress --prune --no-verify --follow-tags --signed[=] --atomic
    -o|--push-option= -4|--ipv4 -6|--ipv6 --verify""",
    {"--receive-pack": _UPLOAD},
    negations=True,
)
LS_REMOTE = table(
    "git ls-remote",
    """-q|--quiet --upload-pack|--exec= -t|--tags -h|--heads --refs --get-url --sort= --exit-code --symref
    -o|--server-option=""",
    {"--upload-pack": _UPLOAD},
    negations=True,
)
REBASE = table(
    "git rebase",
    """--onto= --keep-base --no-verify -q|--quiet -v|--verbose -n|--no-stat --signoff
    --committer-date-is-author-date --reset-author-date --ignore-date -C= --ignore-whitespace
    --whitespace= -f|--force-rebase --no-ff --continue --skip --abort --quit --edit-todo
    --show-current-patch --apply -m|--merge -i|--interactive -p|--preserve-merges --rerere-autoupdate
    --empty= -k|--keep-empty --autosquash --update-refs -S|--gpg-sign[=] --autostash -x|--exec=
    --allow-empty-message -r|--rebase-merges[=] --fork-point -s|--strategy= -X|--strategy-option= --root
    --reschedule-failed-exec --reapply-cherry-picks --verify --stat --ff""",
    {
        "--exec": "runs its value as a command after each commit",
        "--interactive": "runs the sequence editor, a program",
        "--edit-todo": "runs the sequence editor, a program",
    },
    negations=True,
)
ARCHIVE = table(
    "git archive",
    """--format= --prefix= --add-file= --add-virtual-file= -o|--output= --worktree-attributes -v|--verbose
    -l|--list --remote= --exec=""",
    {"--remote": "runs git-upload-archive for a remote (a program with --exec)", "--exec": _UPLOAD},
    complete=False,
    digits=True,
)
INIT = table(
    "git init",
    """-q|--quiet --bare --template= --separate-git-dir= --object-format= -b|--initial-branch= --shared[=]""",
    {"--template": "installs hooks from a directory, which later git commands run"},
    negations=True,
)
REV_PARSE = table(
    "git rev-parse", "--git-path= --resolve-git-dir= --prefix= --default=", abbreviations=False, complete=False
)
_GENERIC = """--upload-pack= --receive-pack= --exec= --ext-diff --textconv --open-files-in-pager[=]
    --config= --output= --show-signature"""
_GENERIC_REFUSED = {
    "--upload-pack": _UPLOAD,
    "--receive-pack": _UPLOAD,
    "--exec": "runs its value as a command",
    "--ext-diff": DIFF_LOG_REFUSED["--ext-diff"],
    "--textconv": _TEXTCONV,
    "--open-files-in-pager": "opens files in a pager (its value is run as a command)",
    "--config": _CONFIG,
    "--output": "writes a file",
    "--show-signature": DIFF_LOG_REFUSED["--show-signature"],
}

REFUSED_SUBCOMMANDS = {
    "config": "git config can make later git commands run programs (core.pager, core.fsmonitor)",
    "submodule": "git submodule foreach runs commands",
    "bisect": "git bisect run runs commands",
    "filter-branch": "git filter-branch runs commands",
    "difftool": "git difftool runs external tools",
    "mergetool": "git mergetool runs external tools",
    "daemon": "git daemon serves the repository",
    "instaweb": "git instaweb starts a web server",
    "credential": "git credential prints stored credentials",
    "credential-cache": "git credential-cache holds credentials",
    "credential-store": "git credential-store prints stored credentials",
    "send-email": "git send-email sends mail and runs its --sendmail-cmd/--to-cmd programs",
    "help": "git help opens documentation with a viewer program the configuration can choose",
    "hook": "git hook runs the repository's hooks",
    "web--browse": "git web--browse runs a browser",
    "upload-pack": "git upload-pack is a server program",
    "receive-pack": "git receive-pack is a server program",
    "upload-archive": "git upload-archive is a server program",
    "shell": "git shell runs commands",
    "remote-ext": "git remote-ext runs commands",
}
_KNOWN = """add am annotate apply archive blame branch bundle cat-file check-attr check-ignore check-mailmap
    check-ref-format checkout checkout-index cherry cherry-pick clean clone commit commit-graph commit-tree
    count-objects describe diff diff-files diff-index diff-tree fetch for-each-ref format-patch fsck gc
    grep hash-object init interpret-trailers log ls-files ls-remote ls-tree merge merge-base merge-file
    merge-tree mktag mktree mv name-rev notes prune pull push range-diff read-tree rebase reflog remote
    repack replace reset restore rev-list rev-parse revert rm shortlog show show-branch show-ref
    sparse-checkout stash status stripspace switch symbolic-ref tag update-index update-ref var
    verify-commit verify-pack verify-tag version whatchanged worktree write-tree"""
KNOWN_SUBCOMMANDS = frozenset(_KNOWN.split()) | frozenset(REFUSED_SUBCOMMANDS)


@cache
def subcommand_spec(name: str) -> OptionSpec:
    """The table for ``git name`` (the generic one where git has no table here)."""
    specific = {
        "grep": GREP,
        "status": STATUS,
        "ls-files": LS_FILES,
        "clone": CLONE,
        "fetch": FETCH,
        "pull": PULL,
        "push": PUSH,
        "ls-remote": LS_REMOTE,
        "rebase": REBASE,
        "archive": ARCHIVE,
        "rev-parse": REV_PARSE,
        "init": INIT,
    }
    if name in specific:
        return specific[name]
    if name in ("diff", "log", "show", "whatchanged", "diff-tree", "diff-index", "diff-files"):
        return table(f"git {name}", _DIFF_LOG, DIFF_LOG_REFUSED, complete=False)
    return table(f"git {name}", _GENERIC, _GENERIC_REFUSED, complete=False)


def read_git(args: Sequence[str]) -> Normalised:
    """git's arguments as tokens: global options, the subcommand (an operand), its options."""
    head = normalise(args, GLOBAL, stop_at_operand=True)
    if any(t.option == "--" for t in head.tokens):
        return Normalised(head.tokens, "git '--': git takes no '--' before the subcommand", head.consumed)
    rest = args[head.consumed :]
    if not rest:
        return head
    subcommand, tail = rest[0], rest[1:]
    body = normalise(tail, subcommand_spec(subcommand))
    reason = None
    if subcommand not in KNOWN_SUBCOMMANDS:
        reason = f"git {subcommand!r} is not a git command the policy knows (aliases and git-* programs run anything)"
    elif subcommand in REFUSED_SUBCOMMANDS:
        reason = REFUSED_SUBCOMMANDS[subcommand]
    elif tail and tail[0] == "--help":
        reason = f"git {subcommand} --help {GLOBAL.long['help'].refused}"
    tokens = (*head.tokens, Token(None, (subcommand,), subcommand), *body.tokens)
    return Normalised(tokens, head.problem or reason or body.problem)
