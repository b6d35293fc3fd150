"""docs/screenshots/ and the README agree: every picture is shown or linked from the README, every
one the README names exists, and each has the Markdown it was rendered from beside it."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SHOTS = REPO / "docs" / "screenshots"


def test_every_screenshot_is_in_the_readme_and_every_one_named_exists() -> None:
    named = set(re.findall(r"\(docs/screenshots/([\w-]+\.png)\)", (REPO / "README.md").read_text()))
    present = {p.name for p in SHOTS.glob("*.png")}
    assert present and named == present
    for name in present:
        source = (SHOTS / name).with_suffix(".md").read_text()
        assert source.lstrip().startswith(("## ", "<!-- aw-harness:progress -->")), name
        assert (SHOTS / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
