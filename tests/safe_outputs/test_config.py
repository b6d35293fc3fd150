"""The ``safe-outputs:`` config: defaults, switches, and errors that name the field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from aw_action.run.config import RunConfig
from aw_action.safe_outputs.config import (
    CONFIG_FILE,
    SafeOutputsConfigError,
    load_config_file,
    parse_safe_outputs,
    write_config_file,
)


def test_defaults_follow_gh_aw() -> None:
    config = parse_safe_outputs(
        {"create-issue": None, "add-comment": {}, "create-pull-request": True, "add-labels": {}, "noop": None}
    )
    assert config.enabled() == ["create_issue", "add_comment", "create_pull_request", "add_labels", "noop"]
    kinds: dict[str, Any] = dict(config.kinds)
    assert kinds["create_issue"].max == 1
    assert kinds["add_comment"].target == "triggering"
    assert kinds["create_pull_request"].draft is True
    assert kinds["add_labels"].max == 3 and kinds["add_labels"].allowed is None
    assert config.max_patch_size == 1024


def test_false_or_absent_disables_a_kind() -> None:
    assert parse_safe_outputs({"create-issue": False}).enabled() == []
    assert parse_safe_outputs(None).enabled() == []
    assert parse_safe_outputs({}).enabled() == []


def test_the_spec_example_parses_with_max_count_as_an_alias() -> None:
    # spec §6.1's example, as the compiler would pass it through config.json
    raw = {"create-issue": {"title-prefix": "[review] ", "labels": ["automated-review"], "max-count": 3}}
    config = parse_safe_outputs(RunConfig.model_validate({"engine": {"model": "m"}, "safe-outputs": raw}).safe_outputs)
    issue: Any = config.kind("create_issue")
    assert (issue.title_prefix, issue.labels, issue.max) == (
        "[review] ",
        ("automated-review",),
        3,
    )


def test_targets_accept_triggering_star_and_numbers() -> None:
    def target(raw: dict[str, Any], record_type: str) -> Any:
        return getattr(parse_safe_outputs(raw).kind(record_type), "target", None)

    assert target({"add-comment": {"target": "*"}}, "add_comment") == "*"
    assert target({"add-comment": {"target": 42}}, "add_comment") == 42
    assert target({"add-labels": {"target": "7"}}, "add_labels") == 7


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"create-issue": {"max": -1}}, "safe-outputs.create-issue.max: Input should be greater than or equal to 1"),
        ({"create-issue": {"max": 0}}, "safe-outputs.create-issue.max: Input should be greater than or equal to 1"),
        ({"create-issue": {"max": float("nan")}}, "safe-outputs.create-issue.max: Input should be a valid integer"),
        ({"create-issue": {"max": "3"}}, "safe-outputs.create-issue.max: Input should be a valid integer"),
        ({"create-issue": {"max": True}}, "safe-outputs.create-issue.max: Input should be a valid integer"),
        ({"add-labels": {"max": 1000}}, "safe-outputs.add-labels.max: Input should be less than or equal to 100"),
        ({"create-pull-request": {"target-repo": "a/b"}}, "safe-outputs.create-pull-request.target-repo: Extra inputs"),
        ({"upload-asset": {}}, "safe-outputs.upload-asset: not supported by aw-harness"),
        ({"add-comment": {"target": "somewhere"}}, "safe-outputs.add-comment.target: must be 'triggering', '*'"),
        ({"add-comment": {"target": -3}}, "safe-outputs.add-comment.target: must be"),
        ({"create-issue": {"labels": ["-bug"]}}, "safe-outputs.create-issue.labels[0]: '-bug' starts with '-'"),
        ({"add-labels": {"allowed": ["ok", "a,b"]}}, "safe-outputs.add-labels.allowed[1]: 'a,b' contains a comma"),
        ({"create-issue": {"title-prefix": "[x]\n"}}, "safe-outputs.create-issue.title-prefix: must be one line"),
        ({"create-pull-request": {"draft": "yes"}}, "safe-outputs.create-pull-request.draft: Input should be a valid"),
        ({"max-patch-size": 0}, "safe-outputs.max-patch-size: Input should be greater than or equal to 1"),
    ],
)
def test_invalid_config_names_the_field(raw: Any, message: str) -> None:
    with pytest.raises(SafeOutputsConfigError) as err:
        parse_safe_outputs(raw)
    assert str(err.value).startswith(message), str(err.value)


def test_not_a_mapping() -> None:
    with pytest.raises(SafeOutputsConfigError, match=r"^safe-outputs: must be a mapping"):
        parse_safe_outputs(["create-issue"])


def test_the_copy_beside_the_records_round_trips(tmp_path: Path) -> None:
    config = parse_safe_outputs({"create-issue": {"title-prefix": "[x] ", "labels": ["a"]}, "noop": None})
    path = write_config_file(tmp_path, config)
    assert path == tmp_path / CONFIG_FILE
    assert json.loads(path.read_text()) == config.to_json()
    assert load_config_file(path) == config


def test_a_config_json_is_also_a_config_file(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"engine": {"model": "m"}, "safe-outputs": {"noop": None}}))
    assert load_config_file(path).enabled() == ["noop"]


@pytest.mark.parametrize("content", ["not json", "[1, 2]", '{"safe-outputs": {"noop": {"max": -2}}}'])
def test_bad_config_files_name_the_file(tmp_path: Path, content: str) -> None:
    path = tmp_path / "cfg.json"
    path.write_text(content)
    with pytest.raises(SafeOutputsConfigError, match=f"^{path}: "):
        load_config_file(path)
