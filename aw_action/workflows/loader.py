"""Load a workflow file: strict YAML, schema, Pi-only features, typed models, graph, prompts.

Every failure is a ``WorkflowLoadError`` whose text is ``file:line: path: message`` (one line),
the first problem in that order; the CLI maps it to exit code 2.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from aw_action.lazy_dataclass import dataclass
from aw_action.workflows import features
from aw_action.workflows.errors import UnsupportedFeatureError, WorkflowLoadError
from aw_action.workflows.graph import graph_issues
from aw_action.workflows.models import PromptFile, WorkflowDefinition
from aw_action.workflows.prompts import PromptFileError, read_prompt_file, unknown_variables
from aw_action.workflows.schema import schema_errors
from aw_action.workflows.yaml_strict import YamlDocument, YamlRejected, load_strict

MAX_WORKFLOW_BYTES = 1024 * 1024


@dataclass(frozen=True)
class LoadedWorkflow:
    """A validated workflow with its prompt templates read and its digests computed.

    ``digest`` changes when anything in the file or a prompt file changes; ``step_digests``
    change only when that step (its fields or its prompt text) changes: resume compares them
    to decide what to restart."""

    definition: WorkflowDefinition
    source: str
    folder: Path
    prompts: dict[str, str]
    digest: str
    step_digests: dict[str, str]


def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def _read(path: Path, source: str) -> str:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise WorkflowLoadError(source, None, (), f"cannot open: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise WorkflowLoadError(source, None, (), "not a regular file")
        if info.st_size > MAX_WORKFLOW_BYTES:
            raise WorkflowLoadError(source, None, (), f"larger than {MAX_WORKFLOW_BYTES // 1024} KiB")
        data = os.read(fd, MAX_WORKFLOW_BYTES + 1)
    finally:
        os.close(fd)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise WorkflowLoadError(source, None, (), f"not UTF-8 text (byte {exc.start})") from None


def _fail(doc: YamlDocument, source: str, path: tuple[str | int, ...], message: str, line_path: Any = None) -> None:
    raise WorkflowLoadError(source, doc.line_of(tuple(line_path or path)), path, message)


def _prompt_texts(definition: WorkflowDefinition, doc: YamlDocument, source: str, folder: Path) -> dict[str, str]:
    texts = {}
    for step_id, step in definition.steps.items():
        path: tuple[str | int, ...] = ("steps", step_id, "prompt")
        if isinstance(step.prompt, PromptFile):
            path = (*path, "file")
            try:
                text = read_prompt_file(folder, step.prompt.file)
            except PromptFileError as exc:
                _fail(doc, source, path, str(exc))
            where = f"{step.prompt.file}:"
        else:
            text, where = step.prompt, "line "
        for line, name in unknown_variables(text)[:1]:
            _fail(doc, source, path, f"{where}{line}: unknown prompt variable {{{{{name}}}}}")
        texts[step_id] = text
    return texts


def load_workflow(path: str | os.PathLike[str]) -> LoadedWorkflow:
    """Read and validate the workflow at ``path`` (see the module docstring)."""
    source = os.fspath(path)
    file = Path(source)
    try:
        doc = load_strict(_read(file, source))
    except YamlRejected as exc:
        raise WorkflowLoadError(source, exc.line, exc.path, str(exc)) from None
    errors = schema_errors(doc.data)
    if errors:
        shown, line_path, message = errors[0]
        _fail(doc, source, shown, message, line_path)
    unsupported = list(features.unsupported_features(doc.data))
    if unsupported:
        where, why = unsupported[0]
        raise UnsupportedFeatureError(source, doc.line_of(where), where, why, more=len(unsupported) - 1)
    try:
        definition = WorkflowDefinition.model_validate(features.strip_inert(doc.data))
    except ValidationError as exc:
        first = exc.errors()[0]
        raise WorkflowLoadError(source, doc.line_of(tuple(first["loc"])), tuple(first["loc"]), first["msg"]) from None
    issues = graph_issues(definition)
    if issues:
        _fail(doc, source, *issues[0])
    folder = file.resolve().parent
    prompts = _prompt_texts(definition, doc, source, folder)
    dumped = definition.model_dump(mode="json", by_alias=True)
    step_digests = {
        step_id: _digest({"step": dumped["steps"][step_id], "prompt": prompts[step_id]}) for step_id in definition.steps
    }
    digest = _digest({"workflow": dumped, "prompts": prompts})
    return LoadedWorkflow(definition, source, folder, prompts, digest, step_digests)
