"""``aw-harness report`` over 1,000 zipped artifacts: wall time and peak RSS (issue 35, item 3).

Target: under 30 s and under 256 MiB peak on a 2-vCPU machine. Reported, never asserted.

The artifacts are real: four runs of the CLI on the scripted provider (20 tool turns, a
budget stop, a provider error, a short answer), each output folder zipped as the action uploads
it, then copied under 1,000 names into one folder (as a matrix's artifacts downloaded as zips).
The report reads each zip bounded, checks **every file** ``records.sha256`` names against its
digest (not only ``aw_session.jsonl``, the one it parses), and parses ``aw_session.jsonl``.
Each case runs the real command in its own process; its peak RSS is its own (``wait4``).

Measured (2026-12-05, 2 CPUs shared with other jobs, load 11.8): 1,000 artifacts, 5 MB of zips,
28 kB inflated each: 3.0 to 9.0 s, 44 MB peak RSS.

    .venv/bin/python bench/bench_report_scale.py [--artifacts 1000]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.process_stats import REPO, measure
from bench.subjects import scripted_run

TARGET_S = 30.0
TARGET_MB = 256.0
TOOL_TURN = {"text": "Looking.", "tool_calls": [{"name": "bash", "arguments": {"command": "echo ok"}}]}
TEMPLATES: dict[str, tuple[list[dict[str, object]], dict[str, object]]] = {
    "long": ([TOOL_TURN] * 20 + [{"text": "Done after twenty."}], {}),
    "max-turns": ([TOOL_TURN] * 6, {"harness": {"budget": {"max-turns": 3}}}),
    "error": ([{"error": {"message": "the provider said no", "kind": "fatal"}}], {}),
    "short": ([{"text": "Done."}], {}),
}


def template_zip(root: Path, name: str, script: list[dict[str, object]], extra: dict[str, object]) -> Path:
    """One real CLI run on the scripted provider, its output folder zipped."""
    work, out = root / "work" / name, root / "out" / name
    argv = scripted_run(work, script, extra)
    env = {"PATH": os.environ["PATH"], "HOME": str(work), "AW_OUTPUT_DIR": str(out), "LANG": "C.UTF-8"}
    subprocess.run(argv, env=env, cwd=work / "ws", capture_output=True, timeout=120)
    archive = root / f"{name}.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(out.rglob("*")):
            zf.write(path, path.relative_to(out).as_posix())
    return archive


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--artifacts", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="aw-report-bench-") as tmp:
        root = Path(tmp)
        templates = [template_zip(root, name, *spec) for name, spec in TEMPLATES.items()]
        downloads = root / "downloads"
        downloads.mkdir()
        for i in range(args.artifacts):
            shutil.copy(templates[i % len(templates)], downloads / f"aw-harness-leg-{i:04d}.zip")
        zipped = sum(p.stat().st_size for p in downloads.iterdir())
        inflated = sum(i.file_size for t in templates for i in zipfile.ZipFile(t).infolist()) / len(templates)
        cases = {
            "report --json": ["--json"],
            "report (Markdown)": [],
        }
        rows = []
        for label, extra in cases.items():
            run = measure([sys.executable, "-m", "aw_action", "report", str(downloads), *extra], cwd=REPO)
            report = json.loads(run.stdout) if extra else None
            read = report["counts"]["runs"] if report else "–"
            time_ok = "yes" if run.seconds < TARGET_S else "**no**"
            rss_ok = "yes" if run.peak_rss_mb < TARGET_MB else "**no**"
            rows.append(
                f"| {label} | {args.artifacts} | {read} | {run.returncode} | {run.seconds:.1f} s ({time_ok}) "
                f"| {run.peak_rss_mb:.0f} MB ({rss_ok}) |"
            )
    print(f"- machine: {os.cpu_count()} CPUs, load {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"- artifacts: {args.artifacts} zips, {zipped / 1e6:.1f} MB together, {inflated / 1e3:.0f} kB inflated each")
    print("- checked: every file records.sha256 names (its SHA-256), aw_session.jsonl parsed\n")
    print(f"| case | artifacts | runs read | exit | wall (< {TARGET_S:.0f} s) | peak RSS (< {TARGET_MB:.0f} MiB) |")
    print("| --- | --: | --: | --: | --: | --: |")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
