"""gh-aw compatibility of the new kinds (the reviews above all), against gh-aw's own definitions (tests/safe_outputs/
data/README.md names the files and commits): the records our tools write pass gh-aw's tool
schemas and the field rules its safe-outputs job checks each record against
(``safe_output_validation_config.go``), and records shaped as gh-aw writes them (numbers as
strings, no ``commit_id``, no event) apply with our apply mode."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.safe_outputs import pr_fixture
from tests.safe_outputs.fake_github import FakeGitHub
from tests.safe_outputs.support import records
from tests.safe_outputs.test_review import COMMENT, CONFIG, REAL_REVIEW, REVIEW, apply, hand_written, record

DATA = Path(__file__).parent / "data"
TOOLS = {t["name"]: t for t in json.loads((DATA / "gh_aw_more_tools.json").read_text())}
RULES: dict[str, Any] = json.loads((DATA / "gh_aw_validation.json").read_text())
SYSTEM = {"type", "commit_id"}  # the record's type, and the field the recorder adds (gh-aw checks neither)


def _positive(value: Any) -> int | None:
    """gh-aw's ``validatePositiveInteger``: a number, or a string ``parseInt`` reads, above 0."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        return None
    if isinstance(value, str):
        digits = value.strip()
        return int(digits) if digits.isdigit() and int(digits) > 0 else None
    return value if value > 0 else None


def gh_aw_errors(record: dict[str, Any]) -> list[str]:
    """The rules of ``safe_output_type_validator.cjs`` for the fields gh-aw's config lists."""
    rules = RULES[record["type"]]
    errors = []
    for name, rule in rules["fields"].items():
        value = record.get(name)
        if value is None:
            if rule.get("required"):
                errors.append(f"{name} is required")
            continue
        if rule.get("type") == "string" and not isinstance(value, str):
            errors.append(f"{name} must be a string")
        if "maxLength" in rule and isinstance(value, str) and len(value) > rule["maxLength"]:
            errors.append(f"{name} is too long")
        numeric = ("positiveInteger", "optionalPositiveInteger", "issueOrPRNumber")
        if any(rule.get(k) for k in numeric) and _positive(value) is None:
            errors.append(f"{name} must be a positive integer")
        if "enum" in rule and value not in rule["enum"]:
            errors.append(f"{name} must be one of {rule['enum']}")
        if rule.get("type") == "array":
            items_ok = isinstance(value, list) and all(
                isinstance(v, str) and len(v) <= rule.get("itemMaxLength", 10**9) for v in value
            )
            if not items_ok:
                errors.append(f"{name} must be an array of short strings")
    custom = str(rules.get("customValidation", ""))
    if custom.startswith("requiresOneOf:") and not any(record.get(f) is not None for f in custom[14:].split(",")):
        errors.append(f"one of {custom[14:]} is required")
    ordered = rules.get("customValidation") == "startLineLessOrEqualLine" and record.get("start_line") is not None
    if ordered and (_positive(record["start_line"]) or 0) > (_positive(record["line"]) or 0):
        errors.append("start_line must be <= line")
    return errors


def test_the_rules_are_real_rules() -> None:
    assert gh_aw_errors({"type": COMMENT, "path": "a", "line": 2, "start_line": 3, "body": "b"}) == [
        "start_line must be <= line"
    ]
    assert gh_aw_errors({"type": "update_issue"}) == ["one of status,title,body is required"]
    assert gh_aw_errors({"type": "add_reviewer", "reviewers": ["x" * 40]}) == [
        "reviewers must be an array of short strings"
    ]
    assert gh_aw_errors({"type": REVIEW, "event": "MERGE"}) == [
        "event must be one of ['APPROVE', 'REQUEST_CHANGES', 'COMMENT']"
    ]


def test_records_we_write_pass_gh_aws_schemas_and_rules(tmp_path: Path) -> None:
    pr = pr_fixture.build(tmp_path)
    config = {**CONFIG, "submit-pull-request-review": {"allowed-events": ["REQUEST_CHANGES"]}}
    calls = [*REAL_REVIEW[:5], (REVIEW, {"body": "Please fix", "event": "REQUEST_CHANGES"})]
    record(tmp_path, pr, config, *calls)
    written = records(tmp_path / "out")
    assert [r["type"] for r in written] == [COMMENT] * 5 + [REVIEW]
    for line in written:
        arguments = {k: v for k, v in line.items() if k not in SYSTEM}
        jsonschema.validate(arguments, TOOLS[line["type"]]["inputSchema"])
        assert gh_aw_errors(line) == [], line
        assert line["commit_id"] == pr.head


GH_AW_RECORDS = [
    {"type": COMMENT, "path": "app.txt", "line": "10", "body": "Why here?"},
    {"type": COMMENT, "path": "app.txt", "start_line": "10", "line": "11", "body": "Range", "side": "RIGHT"},
    {"type": COMMENT, "path": "app.txt", "line": 3, "side": "LEFT", "body": "Removed", "secrecy": "public"},
    {"type": REVIEW, "body": "Looks good overall.", "event": "COMMENT"},  # the minimal call gh-aw's tool describes
]


@pytest.mark.parametrize("line", GH_AW_RECORDS, ids=lambda r: str(r["type"]))
def test_gh_aws_example_records_pass_its_own_rules(line: dict[str, Any]) -> None:
    assert gh_aw_errors(line) == []
    jsonschema.validate({k: v for k, v in line.items() if k != "type"}, TOOLS[line["type"]]["inputSchema"])


def test_gh_aws_records_apply_with_our_apply_mode(tmp_path: Path, capsys: Any) -> None:
    pr = pr_fixture.build(tmp_path)
    fake = FakeGitHub()
    try:
        fake.add_pull(pr.files, pr.head)
        hand_written(tmp_path, CONFIG, *GH_AW_RECORDS, {"type": COMMENT, "path": "helpers.py", "line": 10, "body": "x"})
        code, report, _ = apply(tmp_path, fake, pr, capsys)
        assert code == 0, report
        (post,) = fake.calls("POST", "^/repos/")
        assert post.body["commit_id"] == pr.head, "no commit_id in gh-aw's records: the head found is reviewed"
        assert [(c["path"], c["line"], c.get("start_line"), c["side"]) for c in post.body["comments"]] == [
            ("app.txt", 10, None, "RIGHT"),
            ("app.txt", 11, 10, "RIGHT"),
            ("app.txt", 3, None, "LEFT"),
            ("helpers.py", 10, None, "RIGHT"),
        ]
        assert post.body["event"] == "COMMENT" and post.body["body"].startswith("Looks good overall.")
    finally:
        fake.close()


OTHER_KINDS: list[tuple[dict[str, Any], tuple[str, dict[str, Any]]]] = [
    ({"add-reviewer": None}, ("add_reviewer", {"reviewers": ["octocat"]})),
    ({"update-issue": {"status": None, "title": None, "body": None}}, ("update_issue", {"title": "T", "body": "B"})),
    ({"update-pull-request": {"title": None, "body": None}}, ("update_pull_request", {"body": "B"})),
    ({"close-issue": None}, ("close_issue", {"body": "Closing: done"})),
    ({"close-pull-request": None}, ("close_pull_request", {"body": "Superseded"})),
    ({"missing-tool": None}, ("missing_tool", {"tool": "docker", "reason": "to run the tests"})),
]


@pytest.mark.parametrize(("config", "request_"), OTHER_KINDS, ids=lambda v: str(v[0]) if isinstance(v, tuple) else "")
def test_records_of_the_other_kinds_pass_gh_aws_rules(
    tmp_path: Path, config: dict[str, Any], request_: tuple[str, dict[str, Any]]
) -> None:
    from tests.safe_outputs.test_apply import record as record_in

    record_in(tmp_path, config, request_)
    (line,) = records(tmp_path / "out")
    assert gh_aw_errors(line) == [], line
