"""Structured output: the final answer as JSON that validates against a JSON Schema.

``load_output_schema`` reads ``output-schema`` (inline JSON or a file) and rejects an invalid
schema up front; ``answer_instructions`` is what the task prompt gains; ``check_final_answer``
parses a final answer (bare JSON or a fenced ```json block) and validates it; a failed
``AnswerCheck`` carries ``corrective_message()`` for the corrective prompt the harness sends;
``write_structured_output`` saves the validated value in the output dir.
"""

from __future__ import annotations

from aw_action.structured.final_answer import (
    STRUCTURED_OUTPUT_FILE,
    AnswerCheck,
    OutputSchemaError,
    answer_instructions,
    check_final_answer,
    extract_json,
    load_output_schema,
    write_structured_output,
)

__all__ = [
    "STRUCTURED_OUTPUT_FILE",
    "AnswerCheck",
    "OutputSchemaError",
    "answer_instructions",
    "check_final_answer",
    "extract_json",
    "load_output_schema",
    "write_structured_output",
]
