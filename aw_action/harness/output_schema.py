"""``output-schema``: the run's final answer must be JSON that validates against a JSON Schema.

Works the same on every provider: the task prompt states the schema (``answer_instructions``);
once the prompt completes, the final answer (the last assistant text, the result's
``final_message``) is checked; while it does not validate, up to ``MAX_CORRECTIONS`` corrective
prompts (``source="output-schema"``) tell the model what is wrong and ask again. Each corrective
prompt is an ordinary prompt of the run: budgets, the deadline and cancellation apply to it, and
a prompt that does not complete ends the run with its own stop reason.

- valid: the value goes to ``structured-output.json`` in the output dir (a run file), the
  result's ``structured_output`` and the action's ``structured-output`` output;
- still invalid after the corrections: stop reason ``invalid_output`` (exit 1), with the
  errors in the result's ``error``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from aw_action.environment.tuning import OUTPUT_DIR
from aw_action.exits import InvocationError
from aw_action.harness.context import RunContext
from aw_action.run import record_table
from aw_action.run.config import RunConfig
from aw_action.run.record import StructuredOutput

# ``aw_action.structured`` (jsonschema, ~35 ms) is imported only by a run that has a schema: the
# others must not pay for it before their first request (bench/).

MAX_CORRECTIONS = 2
STRUCTURED_OUTPUT_FILE = record_table.STRUCTURED_OUTPUT.name
STOP_REASON = "invalid_output"
SOURCE = "output-schema"
FILE_HINT = f"check that the output dir ({OUTPUT_DIR.name}) is writable and has free space"


def configured_schema(config: RunConfig, config_dir: Path) -> dict[str, Any] | None:
    """``harness.output-schema`` as a checked schema (a path is relative to config.json's folder);
    ``InvocationError`` naming the field when it is unusable."""
    spec = config.harness.output_schema
    if spec is None:
        return None
    from aw_action.structured import OutputSchemaError, load_output_schema

    try:
        return load_output_schema(spec, config_dir)
    except OutputSchemaError as exc:
        raise InvocationError(f"harness.{exc}") from None


def with_instructions(prompt: str, schema: Mapping[str, Any] | None) -> str:
    if schema is None:
        return prompt
    from aw_action.structured import answer_instructions

    return f"{prompt.rstrip()}\n\n{answer_instructions(schema)}"


def final_answer(context: RunContext) -> str:
    """The text the result reports as ``final_message`` (``RunContext.finish`` takes the same)."""
    return next((m.text for m in reversed(context.session.messages) if m.role == "assistant" and m.text), "")


async def enforce_output_schema(context: RunContext, schema: Mapping[str, Any]) -> None:
    """Check the run's final answer, correcting it up to ``MAX_CORRECTIONS`` times (module docstring)."""
    from aw_action.structured import check_final_answer, write_structured_output

    record = context.state.record
    record.structured_output = StructuredOutput(False)
    for corrections in range(MAX_CORRECTIONS + 1):
        if context.stop_reason:
            return  # the run already ended for its own reason (budget, deadline, cancel, error)
        check = check_final_answer(final_answer(context), schema)
        if check.ok:
            value = context.redactor.obj(check.value)  # a secret the model echoed stays out
            record.structured_output = StructuredOutput(True, value, corrections)
            try:
                record.add_file(write_structured_output(context.output_dir, value, context.services.records))
            except OSError as exc:  # the value still reaches the result and the outputs
                detail = f"{STRUCTURED_OUTPUT_FILE} could not be written: {exc.strerror or exc}"
                context.state.journal.degrade("structured-output", detail, FILE_HINT)
            return
        problems = "; ".join(check.errors)
        record.structured_output = StructuredOutput(False, corrections=corrections)
        if corrections == MAX_CORRECTIONS:
            context.fail(
                STOP_REASON,
                f"the final answer does not match output-schema after {MAX_CORRECTIONS} corrective prompts: {problems}",
            )
            return
        context.state.journal.warn(
            f"the final answer does not match output-schema ({problems}); corrective prompt "
            f"{corrections + 1} of {MAX_CORRECTIONS}"
        )
        await context.prompt(check.corrective_message(), source=SOURCE)
