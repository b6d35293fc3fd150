"""Peak RSS of the tools and the audit on inputs built to exhaust memory (issue 10, item 4).

Each case runs in its own Python process (so its peak RSS is its own), next to a peer in the
same command: the same tool on a ten-line file. Target: every case under 300 MB. Reported,
never asserted.

    .venv/bin/python bench/bench_bounded_memory.py
"""

from __future__ import annotations

import json
import sys
import tempfile
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.process_stats import REPO, measure

TOOL = """
import asyncio, sys
from pathlib import Path
from aw_action.agent.tools import ToolContext, ToolError
from aw_action.ai.types import AbortSignal
from aw_action.tools import BashTool, EditTool, ReadTool

async def ignore(result):
    return None

tool, args = {"read": ReadTool, "edit": EditTool, "bash": BashTool}[sys.argv[1]](), eval(sys.argv[2])
ctx = ToolContext(cwd=Path(sys.argv[3]), output_dir=Path(sys.argv[3]) / "out")
try:
    result = asyncio.run(tool.execute("c", args, AbortSignal(), ignore, ctx))
    print(len(result.content[0].text))
except ToolError as exc:
    print("refused:", str(exc)[:60])
"""


def tool_case(name: str, args: dict[str, object], root: Path) -> tuple[float, float, str]:
    run = measure([sys.executable, "-c", TOOL, name, repr(args), str(root)])
    return run.peak_rss_mb, run.seconds, run.stdout.decode(errors="replace").strip()[:60]


def audit_case(path: Path) -> tuple[float, float, str]:
    run = measure([sys.executable, "-m", "aw_action", "audit", str(path), "--json"])
    return run.peak_rss_mb, run.seconds, f"exit {run.returncode}"


def build(root: Path) -> dict[str, Path]:
    (root / "out").mkdir(parents=True, exist_ok=True)
    (root / "small.txt").write_text("".join(f"line {i}\n" for i in range(10)))
    big = root / "big.log"
    with big.open("wb") as f:  # 26 KB of log lines, then a 2 GB hole (reads as NUL bytes)
        f.write("".join(f"line {i:05d} of a long log\n" for i in range(1000)).encode())
        f.truncate(2 * 1024**3)
    usage = {"type": "usage.report", "data": {"requestId": "r", "model": "m", "usage": {"inputTokens": 1}}}
    line = (json.dumps(usage) + "\n").encode()
    bomb = root / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        for i in range(20):  # 20 x 250 MB of records in a zip of a few MB, written in pieces
            with zf.open(f"r{i}/usage/aw_session.jsonl", "w") as member:
                piece = line * (1024 * 1024 // len(line))
                for _ in range(250):
                    member.write(piece)
    padded = {**usage, "provenance": {"note": "x" * 200}}  # about 330 bytes a record
    legit_line = (json.dumps(padded) + "\n").encode()
    legit = root / "legit.zip"
    with zipfile.ZipFile(legit, "w", zipfile.ZIP_DEFLATED) as zf:  # just under both limits
        zf.writestr("usage/aw_session.jsonl", legit_line * 95_000)
    small_zip = root / "small.zip"
    with zipfile.ZipFile(small_zip, "w") as zf:
        zf.writestr("usage/aw_session.jsonl", line * 10)
    return {"big": big, "bomb": bomb, "legit": legit, "small_zip": small_zip}


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        files = build(root)
        edit = {"oldText": "line 00001", "newText": "LINE 1"}
        cases = [
            ("read: 10-line file (peer)", tool_case("read", {"path": "small.txt"}, root)),
            ("read: first lines of a 2 GB sparse file", tool_case("read", {"path": str(files["big"])}, root)),
            ("read: /dev/zero", tool_case("read", {"path": "/dev/zero"}, root)),
            ("edit: the 2 GB file", tool_case("edit", {"path": str(files["big"]), "edits": [edit]}, root)),
            ("bash: prints 1 GB", tool_case("bash", {"command": "head -c 1G /dev/zero", "timeout": 300}, root)),
            ("audit: 10-record zip (peer)", audit_case(files["small_zip"])),
            (f"audit: {files['bomb'].stat().st_size // 1024} KB zip bomb (5 GB inside)", audit_case(files["bomb"])),
            ("audit: 95 000 records, 31 MB (under the limits)", audit_case(files["legit"])),
        ]
    print(f"{'case':<48}{'peak RSS MB':>12}{'seconds':>9}  outcome")
    for label, (rss, seconds, outcome) in cases:
        print(f"{label:<48}{rss:>12.0f}{seconds:>9.2f}  {outcome}")
    worst = max(rss for _, (rss, _, _) in cases)
    print(f"worst peak RSS: {worst:.0f} MB (target < 300 MB); cwd {REPO}")


if __name__ == "__main__":
    main()
