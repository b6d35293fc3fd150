"""Masks for the action's secrets: the OIDC request token, and every line of a multi-line
secret input, in the runner's masker and in the log's own redactor."""

from __future__ import annotations

import io

from aw_action.github.action_inputs import secret_values
from aw_action.github.log import WorkflowLog

PEM = "\n".join(
    [
        "-----BEGIN PRIVATE KEY-----",
        "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC",
        "BKcwggSjAgEAAoIBAQC7",
        "",
        "==",
        "-----END PRIVATE KEY-----",
    ]
)


def test_the_oidc_request_token_is_masked_like_the_runtime_token() -> None:
    env = {"ACTIONS_RUNTIME_TOKEN": "eyJ.runtime.tok", "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "eyJ.oidc.request.tok"}
    assert secret_values(env) == ["eyJ.runtime.tok", "eyJ.oidc.request.tok"]


def test_each_line_of_a_multiline_secret_input_is_masked_and_redacted() -> None:
    out = io.StringIO()
    log = WorkflowLog(out)
    for secret in secret_values({"INPUT_OPENAI-API-KEY": PEM}):
        log.mask(secret)
    masks = [line.removeprefix("::add-mask::") for line in out.getvalue().splitlines()]
    long_lines = [line for line in PEM.splitlines() if len(line) >= 6]
    assert set(long_lines) <= set(masks)
    for line in long_lines:
        log.write(f"the agent printed {line}\n")
    printed = out.getvalue().split("::stop-commands::", 1)[1]
    for line in long_lines:
        assert line not in printed
    assert "==" not in masks, "lines too short to be secrets are not masked"
