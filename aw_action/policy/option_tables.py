"""The option tables: how each program the restricted modes know reads its options, and which
options they refuse. One table per program; git's are in ``git_options``.

Tables marked complete list every option of the version in the action's image (Debian 12:
coreutils 9.1, grep 3.8, sed 4.9, tar 1.34, jq 1.6; ripgrep 13), taken from the programs
themselves: GNU getopt's own answers (``--x`` is ambiguous / requires an argument / allows none)
and ``--help``; ``tests/tools/test_option_tables.py`` asks the installed programs again.
"""

from __future__ import annotations

from aw_action.policy.options import OptionSpec, table

RUNS = "runs a program"

CAT = table(
    "cat",
    """-A|--show-all -b|--number-nonblank -e -E|--show-ends -n|--number -s|--squeeze-blank -t -T|--show-tabs -u
    -v|--show-nonprinting --help --version""",
)
HEAD = table(
    "head",
    "-c|--bytes= -n|--lines= -q|--quiet|--silent -v|--verbose -z|--zero-terminated --help --version",
    digits=True,
)
TAIL = table(
    "tail",
    """-c|--bytes= -f --follow[=] -F -n|--lines= --max-unchanged-stats= --pid= -q|--quiet|--silent --retry
    -s|--sleep-interval= -v|--verbose -z|--zero-terminated --help --version""",
    digits=True,
)
WC = table(
    "wc", "-c|--bytes -m|--chars -l|--lines -L|--max-line-length -w|--words --debug --files0-from= --help --version"
)
STAT = table("stat", "-c|--format= --cached= -L|--dereference -f|--file-system --printf= -t|--terse --help --version")
LS = table(
    "ls",
    """-a|--all -A|--almost-all --author --block-size= -b|--escape -B|--ignore-backups -c -C --color[=]
    -d|--directory -D|--dired -f -F --classify[=] --file-type --format= --full-time -g
    --group-directories-first -G|--no-group -h|--human-readable --si -H|--dereference-command-line
    --dereference-command-line-symlink-to-dir --hide= --hyperlink[=] --indicator-style= -i|--inode
    -I|--ignore= -k|--kibibytes -l -L|--dereference -m -n|--numeric-uid-gid -N|--literal -o -p
    -q|--hide-control-chars --show-control-chars -Q|--quote-name --quoting-style= -r|--reverse
    -R|--recursive -s|--size -S --sort= --time= --time-style= -t -T|--tabsize= -u -U -v -w|--width= -x
    -X -Z|--context --zero -1 --help --version""",
)
GREP = table(
    "grep",
    """-E|--extended-regexp -F|--fixed-strings|--fixed-regexp -G|--basic-regexp -P|--perl-regexp
    -e|--regexp= -f|--file= -i|--ignore-case -y --no-ignore-case -v|--invert-match -w|--word-regexp
    -x|--line-regexp -c|--count --color|--colour[=] -L|--files-without-match -l|--files-with-matches
    -m|--max-count= -o|--only-matching -q|--quiet|--silent -s|--no-messages -b|--byte-offset
    -H|--with-filename -h|--no-filename --label= -n|--line-number --line-buffered -T|--initial-tab
    -Z|--null -A|--after-context= -B|--before-context= -C|--context= --group-separator=
    --no-group-separator -a|--text --binary-files= -D|--devices= -d|--directories= --exclude=
    --exclude-from= --exclude-dir= --include= -r|--recursive -R|--dereference-recursive -I -U|--binary
    -u --unix-byte-offsets -X= -z|--null-data -V|--version --help""",
    digits=True,
)
SORT = table(
    "sort",
    """-b|--ignore-leading-blanks -d|--dictionary-order -f|--ignore-case -g|--general-numeric-sort
    -i|--ignore-nonprinting -M|--month-sort -h|--human-numeric-sort -n|--numeric-sort -R|--random-sort
    --random-source= -r|--reverse --sort= -V|--version-sort --batch-size= -c --check[=] -C
    --compress-program= --debug --files0-from= -k|--key= -m|--merge -o|--output= -s|--stable
    -S|--buffer-size= -t|--field-separator= -T|--temporary-directory= --parallel= -u|--unique
    -z|--zero-terminated -y= --help --version""",
    {"--output": "writes a file", "--compress-program": RUNS},
)
SED = table(
    "sed",
    """-n|--quiet|--silent --debug -e|--expression= -f|--file= --follow-symlinks -i|--in-place[=]
    -l|--line-length= --posix -E|-r|--regexp-extended -s|--separate --sandbox -u|--unbuffered
    -z|--null-data|--zero-terminated -b|--binary -V= --help --version""",
    {"--in-place": "edits files in place", "--file": "reads its script from a file the policy cannot check"},
)
TAR = table(
    "tar",
    """-A|--catenate|--concatenate -c|--create -d|--diff|--compare --delete -r|--append -t|--list
    --test-label -u|--update -x|--extract|--get -a|--auto-compress -I|--use-compress-program= -j|--bzip2
    -J|--xz --lzip --lzma --lzop -z|--gzip|--gunzip|--ungzip -Z|--compress|--uncompress --zstd
    --no-auto-compress -f|--file= --force-local -F|--info-script|--new-volume-script= -L|--tape-length=
    -M|--multi-volume --rmt-command= --rsh-command= --volno-file= -b|--blocking-factor= -B|--read-full-records
    -i|--ignore-zeros --record-size= -H|--format= --old-archive --portability --posix -V|--label=
    --pax-option= -C|--directory= --add-file= -N|--newer|--after-date= --newer-mtime= --exclude=
    --exclude-backups --exclude-caches --exclude-caches-all --exclude-caches-under -X|--exclude-from=
    --exclude-ignore= --exclude-ignore-recursive= --exclude-tag= --exclude-tag-all= --exclude-tag-under=
    --exclude-vcs --exclude-vcs-ignores --no-null --no-recursion --no-unquote --no-verbatim-files-from
    --null --recursion -T|--files-from= --unquote --verbatim-files-from --anchored --ignore-case
    --no-anchored --no-ignore-case --no-wildcards --no-wildcards-match-slash --wildcards
    --wildcards-match-slash -K|--starting-file= --occurrence[=] --sparse-version= -S|--sparse
    --keep-directory-symlink --keep-newer-files -k|--keep-old-files --no-overwrite-dir --one-top-level[=]
    --overwrite --overwrite-dir --recursive-unlink --remove-files --skip-old-files -U|--unlink-first
    -W|--verify --ignore-command-error --no-ignore-command-error -O|--to-stdout --to-command=
    --atime-preserve[=] --delay-directory-restore --group= --group-map= --mode= --mtime= -m|--touch
    --no-delay-directory-restore --no-same-owner --no-same-permissions --numeric-owner --owner=
    --owner-map= -p|--preserve-permissions|--same-permissions --same-owner -s|--preserve-order|--same-order
    --sort= --acls --no-acls --selinux --no-selinux --xattrs --no-xattrs --xattrs-exclude= --xattrs-include=
    --clamp-mtime -h|--dereference --hard-dereference -l|--check-links --one-file-system -P|--absolute-names
    --backup[=] --suffix= -G|--incremental --hole-detection= -g|--listed-incremental= --level= -n|--seek
    --no-seek --check-device --no-check-device --ignore-failed-read --transform|--xform= --strip-components=
    --show-transformed-names --show-stored-names --quote-chars= --no-quote-chars= --quoting-style=
    -R|--block-number --checkpoint[=] --checkpoint-action= --full-time --index-file= --show-defaults
    --show-omitted-dirs --show-snapshot-field-ranges --totals[=] --utc -v|--verbose --warning=
    -w|--interactive|--confirmation -o --restrict --program-name= --usage --help --version""",
    {
        **dict.fromkeys(
            ("--catenate", "--create", "--diff", "--delete", "--append", "--update", "--extract"),
            "is not listing: restricted modes only list archives (tar -t)",
        ),
        "--use-compress-program": RUNS,
        "--to-command": RUNS,
        "--checkpoint-action": "runs its action (exec=COMMAND)",
        "--info-script": RUNS,
        "--rsh-command": RUNS,
        "--rmt-command": RUNS,
        "--multi-volume": "runs volume scripts and prompts",
        "--index-file": "writes a file",
        "--volno-file": "writes a file",
        "--listed-incremental": "writes a snapshot file",
    },
)
JQ = table(
    "jq",
    """-s|--slurp -r|--raw-output -j|--join-output -c|--compact-output -C|--color-output
    -M|--monochrome-output -a|--ascii-output --unbuffered -S|--sort-keys -R|--raw-input -n|--null-input
    -f|--from-file --tab --indent= --seq --stream --stream-errors -e|--exit-status --args --jsonargs
    --arg=2 --argjson=2 --argfile=2 --rawfile=2 --slurpfile=2 -L= --debug-dump-disasm --debug-trace
    --debug-trace=all -h|--help -V|--version --run-tests""",
    {
        "--from-file": "reads its program from a file the policy cannot check",
        "--run-tests": "runs test programs from a file",
    },
    abbreviations=False,
    alpha_options=True,
)
"""jq 1.6 (``main.c``): long options by exact name only; a short cluster is any letters; ``-L`` only
first; an argument is an option only when ``-`` is followed by a letter or ``-``."""

RG = table(
    "rg",
    """-A|--after-context= -B|--before-context= -C|--context= -E|--encoding= -e|--regexp= -f|--file=
    -g|--glob= -j|--threads= -M|--max-columns= -m|--max-count= -r|--replace= -t|--type= -T|--type-not=
    --pre= --pre-glob= --hostname-bin= -z|--search-zip""",
    {
        "--pre": "runs a program on every file searched",
        "--hostname-bin": RUNS,
        "--search-zip": "runs decompression programs",
    },
    abbreviations=False,
    complete=False,
)
"""ripgrep 13 (clap 2) takes long options by exact name only; ``--hostname-bin`` is ripgrep 14's.
``-z`` follows codex's ``is_safe_command`` (decompressors are programs found on PATH)."""

GH_API = table(
    "gh api",
    """-X|--method= -f|--raw-field= -F|--field= -H|--header= --input= -p|--preview= -q|--jq= -t|--template=
    -i|--include --paginate --slurp --silent --verbose --hostname= --cache=""",
    dict.fromkeys(
        ("--method", "--raw-field", "--field", "--header", "--input"), "is refused: API calls are read-only (GET)"
    ),
    abbreviations=False,
    complete=False,
)
GH_ANY = table("gh", "-q|--jq= -t|--template= -R|--repo=", abbreviations=False, complete=False)
"""gh's flags (cobra/pflag) are exact names; ``--jq`` runs gojq with the process environment
(go-gh ``pkg/jq``: ``WithEnvironLoader(os.Environ)``), so its program is checked like jq's."""

SSH = table(
    "ssh",
    "-B= -b= -c= -D= -E= -e= -F= -I= -i= -J= -L= -l= -m= -O= -o= -P= -p= -Q= -R= -S= -W= -w=",
    {
        "-o": "can run local programs (ProxyCommand)",
        "-F": "reads a config file that can run local programs",
        "-I": "loads a PKCS#11 library",
    },
    abbreviations=False,
    complete=False,
)
SCP = table(
    "scp",
    "-c= -D= -F= -i= -J= -l= -o= -P= -S= -X=",
    {
        "-o": "can run local programs (ProxyCommand)",
        "-F": "reads a config file that can run local programs",
        "-S": RUNS,
        "-D": "runs a local sftp server program",
    },
    abbreviations=False,
    complete=False,
)
RSYNC = table("rsync", "-e|--rsh= --rsync-path=", {"--rsh": RUNS, "--rsync-path": RUNS}, complete=False)
AWK = table(
    "awk",
    """-f|--file= -F|--field-separator= -v|--assign= -e|--source= -E|--exec= -i|--include= -l|--load=
    -d|--dump-variables[=] -D|--debug[=] -o|--pretty-print[=] -p|--profile[=] -L|--lint[=] -W=""",
    {
        "--file": "reads its program from a file the policy cannot check",
        "--exec": "reads its program from a file the policy cannot check",
        "--include": "loads awk source from a file the policy cannot check",
        "--load": "loads a shared library",
        "--dump-variables": "writes a file",
        "--pretty-print": "writes a file",
        "--profile": "writes a file",
        "--debug": "reads debugger commands",
        "-W": "takes implementation options (mawk -W exec, gawk -W long options)",
    },
    complete=False,
)
"""The options of gawk and mawk, whichever ``awk`` is."""

FIND_REFUSED = {
    **dict.fromkeys(("-exec", "-execdir", "-ok", "-okdir"), RUNS),
    "-delete": "deletes files",
    **dict.fromkeys(("-fprint", "-fprint0", "-fprintf", "-fls"), "writes a file"),
}
"""find's primaries are whole words (findutils ``parser.c``), never abbreviated or clustered."""

SPECS: dict[str, OptionSpec] = {
    "cat": CAT,
    "head": HEAD,
    "tail": TAIL,
    "wc": WC,
    "stat": STAT,
    "ls": LS,
    "grep": GREP,
    "sort": SORT,
    "sed": SED,
    "tar": TAR,
    "jq": JQ,
    "rg": RG,
    "ssh": SSH,
    "scp": SCP,
    "rsync": RSYNC,
    **dict.fromkeys(("awk", "gawk", "mawk", "nawk"), AWK),
}
"""Programs read with one table and no further rules beyond those in ``program_checks``."""
