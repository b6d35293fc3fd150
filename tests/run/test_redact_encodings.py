"""Redaction that sees through the encodings an agent's shell produces, and every line of a
multi-line secret. The encodings come from the real tools (base64, basenc, xxd, rev) where the
machine has them."""

from __future__ import annotations

import base64
import shutil
import subprocess
from pathlib import Path

import pytest

from aw_action.run.redact import DERIVED_MIN_LENGTH, MIN_SECRET_LENGTH, Redactor, encoded_forms

REPO = Path(__file__).resolve().parents[2]
KEY = "sk-ant-api03-Xq7ZpL2vN9rT4wYb8cKd1fGh6jM3sA5e"
PEM = "\n".join(
    [
        "-----BEGIN OPENSSH PRIVATE KEY-----",
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
        "QyNTUxOQAAACBvYWJjZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXoxMjM0NTY3ODkwAAAAmA==",
        "",
        "abc",
        "-----END OPENSSH PRIVATE KEY-----",
    ]
)


def _shell(command: list[str], data: bytes) -> str:
    if shutil.which(command[0]) is None:
        pytest.skip(f"{command[0]} is not installed")
    return subprocess.run(command, input=data, capture_output=True, check=True).stdout.decode()


def _cores(secret: str) -> list[str]:
    """The base64 characters that are certain for each alignment of ``secret`` in a stream."""
    data = secret.encode()
    out = []
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        for k in range(3):
            enc = encode(b"\0" * k + data).decode()
            out.append(enc[-(-8 * k // 6) : 8 * (k + len(data)) // 6])
    return out


def _env_dump(secret: str, offset: int) -> bytes:
    """An ``env`` listing with the secret starting at byte ``offset`` modulo 3."""
    return ("PATH=/usr/bin\nHOME=/root\n" + "X" * offset + "=" + f"ANTHROPIC_API_KEY={secret}\nCI=true\n").encode()


@pytest.mark.parametrize("offset", [0, 1, 2])
@pytest.mark.parametrize(
    "command",
    [["base64"], ["base64", "-w", "0"], ["base64", "-w", "13"], ["basenc", "--base64url"]],
    ids=["wrapped76", "unwrapped", "wrapped13", "base64url"],
)
def test_base64_of_an_environment_dump_hides_the_key(command: list[str], offset: int) -> None:
    redactor = Redactor([KEY])
    encoded = _shell(command, _env_dump(KEY, offset))
    out = redactor.text(encoded)
    assert "***" in out
    flat = out.replace("\n", "")
    for core in _cores(KEY):
        for i in range(len(core) - 11):
            assert core[i : i + 12] not in flat, "a 12-character run of the key's encoding survived"


@pytest.mark.parametrize("command", [["xxd", "-p"], ["xxd", "-p", "-u"], ["rev"]], ids=["hex", "HEX", "reversed"])
def test_hex_and_reversed_forms_are_masked(command: list[str]) -> None:
    redactor = Redactor([KEY])
    out = redactor.text(_shell(command, _env_dump(KEY, 1)))
    assert "***" in out
    flat = out.replace("\n", "").lower()
    assert KEY.encode().hex()[:24] not in flat and KEY[::-1][:12] not in out


def test_every_long_enough_line_of_a_multiline_secret_is_masked_alone() -> None:
    redactor = Redactor([PEM])
    lines = PEM.splitlines()
    for line in lines:
        masked = redactor.text(f"log: {line} end")
        if len(line.strip()) >= MIN_SECRET_LENGTH:
            assert line not in masked and "***" in masked
        else:
            assert masked == f"log: {line} end", "lines too short to be secrets are left alone"
    assert redactor.text(PEM) == "***"


def test_short_secrets_get_no_encoded_forms() -> None:
    """A 7-character value is masked as written, but its reversal, hex or base64 are short
    enough to occur by chance, so they are not looked for."""
    short = "abc1234"
    assert len(short) < DERIVED_MIN_LENGTH
    assert encoded_forms(short) == []
    redactor = Redactor([short])
    assert redactor.text(f"x {short} y {short[::-1]}") == f"x *** y {short[::-1]}"


def test_encoded_forms_do_not_mask_ordinary_text() -> None:
    """No false positives on real prose and code with ten random secrets registered."""
    import secrets as random_secrets

    keys = [random_secrets.token_urlsafe(32) for _ in range(10)] + [KEY]
    redactor = Redactor(keys)
    corpus = (REPO / "README.md").read_text() + (REPO / "aw_action" / "harness" / "context.py").read_text()
    corpus += base64.encodebytes(random_secrets.token_bytes(4096)).decode() + random_secrets.token_hex(4096)
    assert redactor.text(corpus) == corpus


def test_secrets_registered_later_also_get_encoded_forms() -> None:
    redactor = Redactor()
    redactor.add(KEY)
    assert redactor.text(base64.b64encode(KEY.encode()).decode()) == "***"
    assert redactor.secrets == frozenset({KEY})


def test_secrets_by_shape_are_masked_known_or_not_and_awf_placeholders_stay() -> None:
    """Issue 29: a ``ghp_`` token, a URL's password, a Slack webhook: masked though no variable
    named them; AWF's placeholder keys are not secrets."""
    from aw_action.run.redact import Redactor

    pat = "ghp_" + "A1b2C3d4E5" * 4
    text = (
        f"token {pat} db postgres://app:planted-pw@db:5432/x hook https://hooks.slack.com/services/T0/B0/abcdefghijklmnop0"
        " npm npm_" + "x" * 36 + " aws AKIAABCDEFGHIJKLMNOP placeholder sk-ant-placeholder-key-for-credential-isolation"
    )
    out = Redactor().text(text)
    for secret in (pat, "planted-pw", "abcdefghijklmnop0", "npm_" + "x" * 36, "AKIAABCDEFGHIJKLMNOP"):
        assert secret not in out
    assert "postgres://app:***@db:5432/x" in out
    assert "sk-ant-placeholder-key-for-credential-isolation" in out
