"""The pull request the review tests share: ``pr``, a real repository with a base and a head commit
(``pr_fixture.py``), and ``fake``, the local fake GitHub serving it as pull request #1. A module
whose tests need another GitHub (issues, comments, labels) defines its own ``fake``, which
replaces this one for that module."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.safe_outputs import pr_fixture
from tests.safe_outputs.fake_github import FakeGitHub


@pytest.fixture
def pr(tmp_path: Path) -> pr_fixture.PullFixture:
    return pr_fixture.build(tmp_path)


@pytest.fixture
def fake(pr: pr_fixture.PullFixture) -> Iterator[FakeGitHub]:
    server = FakeGitHub()
    assert server.add_pull(pr.files, pr.head) == 1
    yield server
    server.close()
