"""The definition's and the example's ``engine`` against gh-aw's own schema (fixture: its ``engine``
part, verbatim, fixtures/gh-aw-schema/README.md). ``oneOf``: each must match exactly one form."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from ruamel.yaml import YAML

from tests.awf.rig import REPO, frontmatter

SCHEMA_FILE = Path(__file__).parent / "fixtures" / "gh-aw-schema" / "engine_config.json"
EXAMPLE = REPO / "examples" / "gh-aw" / "issue-triage.md"
DEFINITION_FORM = 3
SETTINGS_FORM = 1


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(SCHEMA_FILE.read_text())
    jsonschema.Draft7Validator.check_schema(data)
    return data


def matching_forms(schema: dict[str, Any], engine: Any) -> list[int]:
    forms = schema["$defs"]["engine_config"]["oneOf"]
    return [
        i
        for i, form in enumerate(forms)
        if jsonschema.Draft7Validator({**form, "$defs": schema["$defs"]}).is_valid(engine)
    ]


def test_the_definition_is_a_gh_aw_engine_definition(schema: dict[str, Any]) -> None:
    engine = frontmatter()["engine"]
    jsonschema.validate(engine, schema, cls=jsonschema.Draft7Validator)
    assert matching_forms(schema, engine) == [DEFINITION_FORM]


def test_the_example_sets_the_workflows_engine(schema: dict[str, Any]) -> None:
    engine = frontmatter(EXAMPLE)["engine"]
    jsonschema.validate(engine, schema, cls=jsonschema.Draft7Validator)
    assert matching_forms(schema, engine) == [SETTINGS_FORM]


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("behaviors", "capabilities", "bash-allowlist"), True),
        (("detection-engine",), "gemini"),
        (("behaviors", "log-parser"), ["not", "a", "string"]),
        (("behaviors", "execution", "env", "GITHUB_AW"), True),
    ],
)
def test_the_schema_catches_what_gh_aw_would_refuse(schema: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    engine = copy.deepcopy(frontmatter()["engine"])
    node = engine
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(engine, schema, cls=jsonschema.Draft7Validator)


def test_the_docs_fan_out_example_is_a_workflows_engine_setting(schema: dict[str, Any]) -> None:
    docs = (REPO / "docs" / "gh-aw.md").read_text()
    [block] = [b for b in re.findall(r"```yaml\n(.*?)```", docs, re.S) if "concurrency:" in b]
    engine = YAML(typ="safe").load(block)["engine"]
    assert matching_forms(schema, engine) == [SETTINGS_FORM]
    assert "${{ github.run_id }}" in engine["concurrency"]["group"], "one group per run: no queue, no replacing"
    queued = {**engine, "concurrency": {"group": "gh-aw-aw-harness-${{ github.workflow }}", "queue": "max"}}
    assert matching_forms(schema, queued) == [SETTINGS_FORM], "the docs' other form"
