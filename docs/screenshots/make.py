"""Remake docs/screenshots/: what people see, from real runs, rendered as GitHub renders Markdown.

Each case runs the action's real entrypoint (the scripted ``faux`` model, a local artifact v4
server, and for the progress comment a local fake of GitHub's comments API: the test servers
under tests/) and keeps what it wrote: the step summary, or the progress comment's last body.
The Markdown is saved beside its picture (``<name>.md``), rendered with cmark-gfm (GitHub's
own renderer), its ``[!CAUTION]``-style blockquotes shaped as GitHub shapes alerts, styled with
github-markdown-css and photographed by headless Chromium. The faux model has no price, so
every cost reads ``$0.00``; times are those of the scripted runs. Run as root (as the image's
entrypoint runs), the workspace is handed to ``RUNNER_UID`` as GitHub's hosted runners check it
out, so the tools run as that user, isolated from the harness, as they do on a runner: the
summaries show what a user sees there, not a root-only machine's warning.

    .venv/bin/python docs/screenshots/make.py [--css github-markdown-light.css] [--only NAME]

Needs ``chromium`` on the PATH; without ``--css`` it fetches github-markdown-css with ``npm pack``.
"""

from __future__ import annotations

import argparse
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cmarkgfm
from cmarkgfm.cmark import Options

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from tests.action.launch import ActionRun, run_action, write_script  # noqa: E402
from tests.github.artifact_server import ArtifactServer, runtime_token  # noqa: E402
from tests.servers.github_comments import TOKEN as COMMENTS_TOKEN  # noqa: E402
from tests.servers.github_comments import CommentsAPI  # noqa: E402

CSS_PACKAGE = "github-markdown-css@5.9.0"
RUNTIME_TOKEN = runtime_token("41", "41")
RUNNER_UID = 1001
"""The uid GitHub's hosted runners check the workspace out as."""
SUMMARY_WIDTH = 1012
COMMENT_WIDTH = 820

ANSWER = """## Fixed: `add()` returned the difference

`app.py` subtracted its arguments; it now adds them, and a test holds it.

| file | change |
|---|---|
| `app.py` | `return a - b` → `return a + b` |
| `test_app.py` | new: `add(2, 3) == 5` |

- [x] the bug reproduced before the change
- [x] `python3 test_app.py` passes after it

@octocat: this closes #12 once merged."""

WRITE_APP = "printf 'def add(a, b):\\n    return a - b\\n' > app.py"
FIX_APP = "sed -i 's/a - b/a + b/' app.py"
WRITE_TEST = "printf 'from app import add\\nassert add(2, 3) == 5, add(2, 3)\\nprint(\"ok\")\\n' > test_app.py"


def _bash(command: str) -> dict[str, Any]:
    return {"name": "bash", "arguments": {"command": command}}


def _turn(text: str, *calls: dict[str, Any], tokens: int = 2_400) -> dict[str, Any]:
    return {"text": text, "tool_calls": list(calls), "usage": {"input": tokens, "output": 180}}


SUCCESS = [
    _turn(
        "Reproducing.", _bash(WRITE_APP), _bash(WRITE_TEST), _bash("python3 -c 'from app import add; print(add(2, 3))'")
    ),
    # A second later: the fix keeps app.py's size, so within the same second Python would take the
    # bytecode cached by the import above for current and the test would still fail.
    {**_turn("Fixing.", _bash(FIX_APP), {"name": "read", "arguments": {"path": "app.py"}}), "delay_s": 1.1},
    _turn("Checking.", _bash("python3 test_app.py")),
    {"text": ANSWER, "usage": {"input": 3_100, "output": 420}},
]

READ_SETUP = {"name": "read", "arguments": {"path": "setup.cfg"}}
FAILING_TOOLS = [
    _turn("Looking around.", _bash(WRITE_APP), _bash("ls")),
    _turn("Running the suite.", _bash("python3 -m nosuchrunner -q"), READ_SETUP),
    _turn("Trying directly.", _bash(WRITE_TEST), _bash("python3 test_app.py")),
    {"text": "The test fails: `add(2, 3)` gives `-1`. I could not run the project's suite (no runner installed).",
     "usage": {"input": 3_000, "output": 90}},
]  # fmt: skip

BUDGET = [_turn(f"Step {i}.", _bash(f"grep -rn 'def ' . | head -{i}"), tokens=4_000) for i in range(1, 9)]

SCHEMA = {
    "type": "object",
    "properties": {"severity": {"enum": ["low", "medium", "high"]}, "summary": {"type": "string"}},
    "required": ["severity", "summary"],
}
SCHEMA_ANSWERS = [
    {"text": '{"severity": "urgent", "summary": "add() subtracts"}'},
    {"text": '{"severity": "critical", "summary": "add() subtracts"}'},
    {"text": '{"severity": "severe"}'},
]


def _action(
    tmp: Path, script: list[dict[str, Any]], inputs: dict[str, str], env: dict[str, str] | None = None
) -> ActionRun:
    ws = tmp / "workspace"
    ws.mkdir(parents=True, exist_ok=True)
    path = write_script(ws, script)
    if os.geteuid() == 0:  # the checkout as a hosted runner has it (the module docstring)
        os.chown(ws, RUNNER_UID, RUNNER_UID)
        os.chown(path, RUNNER_UID, RUNNER_UID)
    base = {"prompt": "Fix the failing add() in app.py and say what you changed.", "model": "faux/scripted"}
    with ArtifactServer(RUNTIME_TOKEN) as server:
        extra = {
            "ACTIONS_RUNTIME_TOKEN": RUNTIME_TOKEN,
            "ACTIONS_RESULTS_URL": server.url + "/",
            "AW_FAUX_SCRIPT": str(path),
            **(env or {}),
        }
        return run_action(tmp, {**base, **inputs}, extra, timeout=120)


def _summary(
    script: list[dict[str, Any]], inputs: dict[str, str], env: dict[str, str] | None = None
) -> Callable[[Path], str]:
    def make(tmp: Path) -> str:
        run = _action(tmp, script, inputs, env)
        if not run.summary.strip():
            raise SystemExit(f"no step summary: {run.stdout[-2000:]}")
        return run.summary

    return make


NOTES_SCRIPT = [
    _turn("Reading the notes.", _bash("cat notes.txt && wc -l notes.txt")),
    {"text": "The notes list two open items.", "usage": {"input": 2_600, "output": 60}},
]


def _replay_diverged(tmp: Path) -> str:
    """A run recorded in one job, replayed in another whose notes.txt changed since."""
    (tmp / "record" / "workspace").mkdir(parents=True)
    (tmp / "record" / "workspace" / "notes.txt").write_text("- ship 1.2\n- fix add()\n")
    recorded = _action(tmp / "record", NOTES_SCRIPT, {"prompt": "Read the notes.", "upload-artifacts": "false"})
    if recorded.returncode != 0:
        raise SystemExit(f"the recorded run failed: {recorded.stdout[-2000:]}")
    (tmp / "replay" / "workspace").mkdir(parents=True)
    (tmp / "replay" / "workspace" / "notes.txt").write_text("- ship 1.2\n- fix add()\n- drop 3.9\n")
    records = str(recorded.paths.runner_temp / "aw-harness")
    run = _action(tmp / "replay", [], {"mode": "replay", "replay-records": records})
    if run.returncode != 1:
        raise SystemExit(f"the replay did not diverge: {run.stdout[-2000:]}")
    return run.summary


def _progress(script: list[dict[str, Any]], inputs: dict[str, str]) -> Callable[[Path], str]:
    def make(tmp: Path) -> str:
        api = CommentsAPI()
        try:
            event = tmp / "event.json"
            tmp.mkdir(parents=True, exist_ok=True)
            payload = {
                "action": "created",
                "issue": {"number": 12, "title": "add() is wrong"},
                "comment": {"body": "@aw fix"},
                "sender": {"login": "helper-bot[bot]", "type": "Bot"},
            }
            event.write_text(json.dumps(payload))
            env = {
                "GITHUB_API_URL": api.url,
                "GITHUB_EVENT_PATH": str(event),
                "GITHUB_EVENT_NAME": "issue_comment",
            }
            settings = {"progress-comment": "true", "github-token": COMMENTS_TOKEN, "allowed-bots": "helper-bot"}
            run = _action(tmp, script, {**settings, **inputs}, env)
            if not api.comments:
                raise SystemExit(f"no progress comment: {run.stdout[-2000:]}")
            body: str = next(iter(api.comments.values()))["body"]
            return body
        finally:
            api.close()

    return make


CASES: dict[str, tuple[str, Callable[[Path], str]]] = {
    "summary-success": ("summary", _summary(SUCCESS, {})),
    "summary-failing-tools": ("summary", _summary(FAILING_TOOLS, {})),
    "summary-budget-stop": ("summary", _summary(BUDGET, {"max-effective-tokens": "12000"})),
    "summary-timeout": ("summary", _summary([{"text": "Thinking.", "delay_s": 30}], {"timeout-minutes": "0.05"})),
    "summary-invalid-input": ("summary", _summary(SUCCESS, {"max-turns": "ten"})),
    "summary-schema-failure": ("summary", _summary(SCHEMA_ANSWERS, {"output-schema": json.dumps(SCHEMA)})),
    "summary-misspelt-input": ("summary", _summary(SUCCESS, {}, {"INPUT_MAX-TURN": "3"})),
    "summary-replay-diverged": ("summary", _replay_diverged),
    "progress-comment-success": ("comment", _progress(SUCCESS, {"progress-comment-answer": "true"})),
    "progress-comment-failure": ("comment", _progress(FAILING_TOOLS[:3] + BUDGET, {"max-turns": "3"})),
}

ALERT = re.compile(r"<blockquote>\s*<p>\[!(NOTE|TIP|IMPORTANT|WARNING|CAUTION)\]\s*", re.S)


def _alerts(body: str) -> str:
    """GitHub's alert markup for ``> [!KIND]`` blockquotes (cmark-gfm leaves them quotes)."""
    out, rest = [], body
    while (found := ALERT.search(rest)) is not None:
        kind = found.group(1).lower()
        end = rest.index("</blockquote>", found.end())
        title = f'<p class="markdown-alert-title">{kind.capitalize()}</p>'
        inner = "<p>" + rest[found.end() : end]
        out += [rest[: found.start()], f'<div class="markdown-alert markdown-alert-{kind}">{title}{inner}</div>']
        rest = rest[end + len("</blockquote>") :]
    return "".join([*out, rest])


def page(markdown: str, css: str, width: int, label: str) -> str:
    body = _alerts(cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE))
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>{html.escape(label)}</title>
<style>{css}
body {{ margin: 0; background: #f6f8fa; }}
.frame {{ width: {width}px; margin: 16px; background: #fff; border: 1px solid #d0d7de; border-radius: 6px; }}
.frame .label {{ font: 600 14px -apple-system, "Segoe UI", sans-serif; padding: 10px 16px;
  border-bottom: 1px solid #d0d7de; background: #f6f8fa; border-radius: 6px 6px 0 0; color: #1f2328; }}
.markdown-body {{ padding: 16px 24px; }}
.markdown-alert-title {{ font-weight: 600; }}
</style></head><body><div class="frame"><div class="label">{html.escape(label)}</div>
<div class="markdown-body">{body}</div></div>
<script>document.title = String(document.documentElement.scrollHeight);</script></body></html>"""


def shoot(chromium: str, source: Path, target: Path, width: int) -> None:
    flags = [
        chromium,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        "--force-device-scale-factor=1",
    ]
    dom = subprocess.run([*flags, "--dump-dom", source.as_uri()], capture_output=True, text=True, check=True).stdout
    found = re.search(r"<title>(\d+)</title>", dom)
    height = int(found.group(1)) if found else 2000
    size = f"--window-size={width + 34},{height}"
    subprocess.run([*flags, size, f"--screenshot={target}", source.as_uri()], capture_output=True, check=True)


def _css(given: str | None, tmp: Path) -> str:
    if given:
        return Path(given).read_text()
    subprocess.run(["npm", "pack", CSS_PACKAGE, "--silent"], cwd=tmp, check=True, capture_output=True)
    archive = next(tmp.glob("github-markdown-css-*.tgz"))
    subprocess.run(["tar", "xzf", archive.name], cwd=tmp, check=True)
    return (tmp / "package" / "github-markdown-light.css").read_text()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--css", help="github-markdown-light.css (default: fetched with npm pack)")
    parser.add_argument("--only", action="append", choices=sorted(CASES), help="remake only this one")
    args = parser.parse_args()
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("make.py: no chromium on the PATH: nothing rendered", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="aw-shots-") as scratch:
        tmp = Path(scratch)
        tmp.chmod(0o755)  # the tools' user must reach the workspaces under it
        css = _css(args.css, tmp)
        for name in args.only or CASES:
            kind, make = CASES[name]
            markdown = make(tmp / name)
            (HERE / f"{name}.md").write_text(markdown)
            label = "smoke summary" if kind == "summary" else "github-actions (bot) commented on issue #12"
            width = SUMMARY_WIDTH if kind == "summary" else COMMENT_WIDTH
            source = tmp / f"{name}.html"
            source.write_text(page(markdown, css, width, label))
            shoot(chromium, source, HERE / f"{name}.png", width)
            print(f"docs/screenshots/{name}.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
