"""``mcp-servers`` and the action's ``mcp-config``: checked by the one config resolution, each
error naming the server and the key (exit 2), secrets only by variable name."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from aw_action.config import ConfigError, ConfigSources, Override, resolve_config
from aw_action.github.action_inputs import ActionInputError, ActionInputs, env_name
from aw_action.github.plan import input_overrides
from aw_action.mcp.config import DEFAULT_STARTUP_TIMEOUT_S, DEFAULT_TOOL_TIMEOUT_S, from_claude

MODEL = {"engine": {"model": "faux/scripted"}}


def _resolve(tmp_path: Path, servers: dict[str, Any], overrides: tuple[Override, ...] = (), **extra: Any) -> Any:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**MODEL, "mcp-servers": servers, **extra}))
    return resolve_config(ConfigSources(path, overrides=overrides), {})


def _error(tmp_path: Path, servers: dict[str, Any], **extra: Any) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        _resolve(tmp_path, servers, **extra)
    assert caught.value.exit_code == 2
    return caught.value


def test_defaults_survive_a_slow_first_start(tmp_path: Path) -> None:
    server = _resolve(tmp_path, {"docs": {"command": "docs-mcp"}}).config.mcp_servers["docs"]
    assert (
        (server.startup_timeout, server.tool_timeout) == (DEFAULT_STARTUP_TIMEOUT_S, DEFAULT_TOOL_TIMEOUT_S) == (30, 60)
    )
    assert server.transport == "stdio" and not server.required


@pytest.mark.parametrize(
    ("servers", "words"),
    [
        ({"docs": {}}, ["mcp-servers.docs", "command: required"]),
        (
            {"docs": {"command": "x", "url": "http://h/mcp"}},
            ["mcp-servers.docs", "an HTTP server (url) takes no command"],
        ),
        ({"docs": {"type": "sse", "url": "http://h/sse"}}, ["mcp-servers.docs", "legacy HTTP+SSE"]),
        ({"docs": {"command": "x", "env": {"K": "ghp_" + "a" * 36}}}, ["mcp-servers.docs", "env.K: holds a secret"]),
        ({"docs": {"command": "x", "startup-timout": 3}}, ["mcp-servers.docs.startup-timout"]),
        (
            {"docs": {"command": "x", "env-vars": ["ANTHROPIC_API_KEY"]}},
            ["docs.env-vars: ANTHROPIC_API_KEY", "model key"],
        ),
        (
            {"docs": {"command": "x", "env-vars": ["INPUT_GITHUB-TOKEN"]}},
            ["mcp-servers.docs", "env-vars: 'INPUT_GITHUB-TOKEN' is not a variable name"],
        ),
        ({"docs": {"command": "x", "env-vars": ["ACTIONS_RUNTIME_TOKEN"]}}, ["runner's own"]),
        ({"docs": {"command": "x", "env": {"ACTIONS_RUNTIME_TOKEN": "x"}}}, ["docs.env: ACTIONS_RUNTIME_TOKEN"]),
        ({"docs": {"command": "x", "env": {"OPENAI_API_KEY": "sk-not-the-harness-s"}}}, ["docs.env: OPENAI_API_KEY"]),
        ({"docs": {"command": "x", "env-vars": ["GITHUB_TOKEN"]}}, ["only when tools.github grants"]),
        ({"docs": {"url": "http://h/mcp", "headers": {"X": "${OPENAI_API_KEY}"}}}, ["docs.env-vars: OPENAI_API_KEY"]),
        ({"a__b": {"command": "x"}}, ["a__b: a server name"]),
        ({"a_": {"command": "x"}}, ["a_: a server name"]),
        ({"gh": {"container": "ghcr.io/github/github-mcp-server"}}, ["mcp-servers.gh", "no Docker"]),
    ],
)
def test_bad_servers_are_refused_naming_the_server_and_the_key(
    tmp_path: Path, servers: dict[str, Any], words: list[str]
) -> None:
    message = str(_error(tmp_path, servers))
    for word in words:
        assert word in message, message


def test_the_github_token_passes_only_when_tools_github_grants_access(tmp_path: Path) -> None:
    resolved = _resolve(tmp_path, {"gh": {"command": "x", "env-vars": ["GITHUB_TOKEN"]}}, tools={"github": {}})
    assert resolved.config.mcp_servers["gh"].env_vars == ["GITHUB_TOKEN"]


def test_a_users_own_secret_passes_by_name(tmp_path: Path) -> None:
    servers = {"jira": {"url": "https://jira/mcp", "headers": {"X-Key": "${JIRA_API_TOKEN}"}}}
    assert _resolve(tmp_path, servers).config.mcp_servers["jira"].variables() == ["JIRA_API_TOKEN"]


def test_claude_documents_become_servers() -> None:
    servers = from_claude(
        {
            "mcpServers": {
                "a": {"command": "npx", "args": ["-y", "x"], "env": {"K": "${K}"}},
                "b": {"type": "http", "url": "https://h/mcp"},
                "c": {"command": "z", "disabled": True},
            }
        },
        "mcp-config",
    )
    assert set(servers) == {"a", "b"} and servers["a"]["args"] == ["-y", "x"]
    with pytest.raises(ValueError, match="mcpServers"):
        from_claude({"servers": {}}, "mcp-config")


_monkeypatch: list[pytest.MonkeyPatch] = []


@pytest.fixture(autouse=True)
def _input_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.upper().startswith("INPUT_"):
            monkeypatch.delenv(name)
    _monkeypatch[:] = [monkeypatch]


def _inputs(value: str) -> Any:
    _monkeypatch[0].setenv(env_name("mcp-config"), value)
    return ActionInputs.from_env()


def test_the_action_input_inline_or_a_file_merges_and_a_twice_defined_server_is_refused(tmp_path: Path) -> None:
    doc = {"mcpServers": {"docs": {"command": "docs-mcp"}}}
    (tmp_path / "mcp.json").write_text(json.dumps(doc))
    for value in (json.dumps(doc), "mcp.json"):
        overrides = input_overrides(_inputs(value), tmp_path)
        resolved = _resolve(tmp_path, {"other": {"command": "o"}}, overrides)
        assert set(resolved.config.mcp_servers) == {"docs", "other"}
    with pytest.raises(ConfigError, match=r"mcp-servers\.docs: defined both here and in mcp-config") as caught:
        _resolve(tmp_path, {"docs": {"command": "o"}}, input_overrides(_inputs("mcp.json"), tmp_path))
    assert caught.value.source == "mcp-config"


def test_a_bad_server_of_the_input_names_the_input(tmp_path: Path) -> None:
    overrides = input_overrides(_inputs('{"mcpServers": {"docs": {"url": "ftp://h"}}}'), tmp_path)
    with pytest.raises(ConfigError) as caught:
        _resolve(tmp_path, {}, overrides)
    assert caught.value.source == "mcp-config" and "mcp-servers.docs" in str(caught.value)
    with pytest.raises(ActionInputError, match="Input 'mcp-config'"):
        input_overrides(_inputs("missing.json"), tmp_path)
    with pytest.raises(ActionInputError, match="Input 'mcp-config'"):
        input_overrides(_inputs('{"mcpServers": 3}'), tmp_path)


def test_on_a_forks_pull_request_a_stdio_server_given_secrets_is_refused(tmp_path: Path) -> None:
    from types import SimpleNamespace

    from aw_action.github.fork_files import ForkFiles

    fork = ForkFiles.__new__(ForkFiles)
    fork.check = SimpleNamespace(reason="the pull request comes from a fork")  # type: ignore[assignment]
    plain = _resolve(tmp_path, {"docs": {"command": "docs-mcp"}, "web": {"url": "https://h/mcp", "env": {}}})
    fork.pin(plain.config, tmp_path)  # no secret: as any agent process
    secret = _resolve(tmp_path, {"docs": {"command": "docs-mcp", "env-vars": ["DOCS_TOKEN"]}})
    with pytest.raises(ActionInputError, match=r"mcp-servers\.docs: a stdio server given variables \(DOCS_TOKEN\)"):
        fork.pin(secret.config, tmp_path)
