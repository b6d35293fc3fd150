"""Every ``uses: org/aw-harness@<tag>`` in the README, the docs, the examples and the workflows names a
tag a release makes: ``v<version>`` (pushed by whoever cuts it, docs/release.md step 3) or the major tag
``v<major>``, which the release workflow moves (its ``major-tag`` job, step 5)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

REPO = Path(__file__).resolve().parents[2]
VERSION = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
MAJOR = VERSION.split(".")[0]
RELEASE = YAML(typ="safe").load((REPO / ".github" / "workflows" / "release.yml").read_text())
USES = re.compile(r"\b[\w.-]+/aw-harness@([\w.\-<>]+)")


def _documents() -> list[Path]:
    found = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    found += sorted(p for p in (REPO / "examples").rglob("*") if p.suffix in (".md", ".yml", ".yaml"))
    return [*found, *sorted((REPO / ".github" / "workflows").glob("*.yml"))]


def test_every_uses_names_a_tag_the_release_makes() -> None:
    made = {f"v{VERSION}", f"v{MAJOR}"}
    seen = {}
    for path in _documents():
        for tag in USES.findall(path.read_text(encoding="utf-8")):
            if "<" not in tag and tag not in ("release", "main"):  # placeholders (<ref>) name no tag
                seen.setdefault(tag, path.relative_to(REPO).as_posix())
    assert seen, "the README shows a uses: line"
    assert {tag: where for tag, where in seen.items() if tag not in made} == {}
    readme = USES.findall((REPO / "README.md").read_text())
    assert readme and set(readme) <= made


def _job(name: str) -> dict[str, Any]:
    job: dict[str, Any] = RELEASE["jobs"][name]
    return job


def test_the_release_workflow_moves_the_major_tag_after_the_image_exists() -> None:
    assert RELEASE["on"]["push"]["tags"] == ["v[0-9]+.[0-9]+.[0-9]+"]  # v<version> starts a release
    check = _job("versions")["steps"][-1]["run"]
    assert 'echo "major=${version%%.*}"' in check  # v0.1.0 -> 0
    job = _job("major-tag")
    assert {"image", "versions"} <= set(job["needs"]), "the tag moves only once the image is pushed"
    assert job["permissions"] == {"contents": "write"}
    (step,) = job["steps"]
    assert step["env"]["MAJOR_TAG"] == "v${{ needs.versions.outputs.major }}"
    assert 'git/refs/tags/$MAJOR_TAG" -f sha="$GITHUB_SHA" -F force=true' in step["run"]
    assert 'ref="refs/tags/$MAJOR_TAG" -f sha="$GITHUB_SHA"' in step["run"]


def test_release_md_says_which_tags_exist() -> None:
    doc = (REPO / "docs" / "release.md").read_text()
    assert "job `major-tag`" in doc and "major git tag `v<major>`" in doc
    assert f"uses: org/aw-harness@v{MAJOR}`" in doc
