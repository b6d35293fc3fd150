"""Assemble and run one session: inputs, extensions, session, outcome.

``Harness.run()`` is the whole algorithm of spec §7.1: load config.json and prompt.txt, load the
built-in extensions then the user's, create exactly one session, prompt it once with the
assembled prompt, dispose it on success and on failure, and map the outcome to an exit code.
Nothing here raises past ``run()``: every failure becomes a ``RunResult``.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from aw_action.agent.session import AgentSession
from aw_action.agent.tools import AgentTool, ToolContext
from aw_action.agent.transcript import Transcript
from aw_action.ai.catalog import UnknownModelError, resolve_model
from aw_action.ai.types import Model, Provider, UserMessage
from aw_action.config import RunConfig
from aw_action.errors import HarnessError, InvocationError
from aw_action.extensions.api import HostServices, Registry
from aw_action.extensions.loader import load_all
from aw_action.extensions.provenance import record_inputs
from aw_action.extensions.runner import ExtensionRunner
from aw_action.extensions.state import RunState
from aw_action.inputs import (
    apply_overrides,
    assemble_prompt,
    load_config,
    load_prompt,
    resolve_imports,
)
from aw_action.sinks.failure import report_invocation_error
from aw_action.sinks.jsonl import JsonlSink
from aw_action.sinks.redact import Redactor, header_values, secrets_from_env
from aw_action.tools import builtin_tools

DEFAULT_OUTPUT_DIR = "/tmp/gh-aw"
TRANSCRIPT_FILE = "session.jsonl"

SYSTEM_PROMPT = (
    "You are an autonomous agent running one task inside a CI job; nobody will answer questions. "
    "Work in the current directory ({cwd}) using your tools (bash, read, write, edit). "
    "Keep tool output small. When the task is done, reply with a short final summary and make no "
    "further tool call."
)

CREDENTIAL_VARS = (
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "CODEX_API_KEY",
    "COPILOT_GITHUB_TOKEN",
    "GEMINI_API_KEY",
)
"""Model credentials the agent's own shell never sees (it needs none of them)."""


@dataclass
class RunResult:
    exit_code: int
    stop_reason: str
    conclusion: str
    model: str
    state: RunState | None = None
    error: str | None = None
    files: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The one object printed on stdout when the run ends."""
        s = self.state
        totals = s.totals if s else None
        return {
            "conclusion": self.conclusion,
            "stop_reason": self.stop_reason,
            "exit_code": self.exit_code,
            "model": self.model,
            "turns": len(s.turns) if s else 0,
            "tokens": {
                "input": totals.input if totals else 0,
                "output": totals.output if totals else 0,
                "cache_read": totals.cache_read if totals else 0,
                "cache_write": totals.cache_write if totals else 0,
                "reasoning": totals.reasoning if totals else 0,
                "total": totals.total if totals else 0,
                "effective": round(s.effective_tokens, 2) if s else 0,
            },
            "cost_usd": s.cost_usd if s else None,
            "ai_credits": s.ai_credits if s else None,
            "duration_ms": s.elapsed_ms if s else 0,
            "final_message": s.final_message if s else "",
            "files": self.files,
            "error": self.error,
        }


def output_dir_from(env: Mapping[str, str]) -> Path:
    return Path(env.get("AW_OUTPUT_DIR") or DEFAULT_OUTPUT_DIR)


def build_redactor(env: Mapping[str, str], config: RunConfig | None = None) -> Redactor:
    redactor = Redactor(secrets_from_env(env))
    if config is not None:
        for value in config.observability.otlp.headers.values():
            redactor.add(value, *header_values(f"h={value}"))
    return redactor


class Harness:
    """One invocation. ``cancel()`` may be called from a signal handler at any time."""

    def __init__(
        self,
        config_path: Path,
        prompt_path: Path,
        env: Mapping[str, str] | None = None,
        *,
        stderr: IO[str] | None = None,
        config: RunConfig | None = None,
    ) -> None:
        self.config_path = config_path
        self.prompt_path = prompt_path
        self.env: dict[str, str] = dict(os.environ if env is None else env)
        self.output_dir = output_dir_from(self.env)
        self.workspace = Path(self.env.get("GITHUB_WORKSPACE") or os.getcwd())
        self.redactor = build_redactor(self.env)
        self.jsonl = JsonlSink(self.redactor, stderr)
        self._preloaded = config
        self.session: AgentSession | None = None
        self.runner: ExtensionRunner | None = None
        self.state: RunState | None = None
        self._cancel_reason: str | None = None

    def cancel(self, reason: str = "cancelled") -> None:
        """Stop the run as soon as possible; the outcome is ``reason`` (exit 1)."""
        self._cancel_reason = self._cancel_reason or reason
        if self.session is not None:
            self.session.cancel_pending(reason)

    def error_line(self, message: str) -> None:
        self.jsonl.line(f"aw-harness: error: {message}")

    async def run(self) -> RunResult:
        model_name = "unknown"
        try:
            config = self._preloaded or load_config(self.config_path)
            model_name = config.engine.model
            self.redactor = build_redactor(self.env, config)
            self.jsonl = JsonlSink(self.redactor, self.jsonl.stream)
            prompt = load_prompt(self.prompt_path)
            imports = resolve_imports(config, self.config_path.parent, self._workspace_for_imports())
            for warning in apply_overrides(config):
                self.jsonl.line(f"aw-harness: warning: {warning}")
            model = self._resolve(config.engine.model)
            model_name = model.ref
            return await self._run_session(config, model, imports, prompt)
        except InvocationError as exc:
            self.error_line(str(exc))
            report_invocation_error(exc, model_name, self.env, self.jsonl, self.redactor)
            return RunResult(exc.exit_code, exc.stop_reason, "failure", model_name, self.state, str(exc))

    def _workspace_for_imports(self) -> Path | None:
        ws = self.env.get("GITHUB_WORKSPACE")
        return Path(ws) if ws else None

    @staticmethod
    def _resolve(name: str) -> Model:
        try:
            return resolve_model(name)
        except UnknownModelError as exc:
            raise InvocationError(f"engine.model: {exc}") from None

    async def _run_session(self, config: RunConfig, model: Model, imports: list[Any], prompt: str) -> RunResult:
        self.output_dir.mkdir(parents=True, exist_ok=True)
        state = self.state = RunState(model=model.ref)
        registry = Registry()
        services = HostServices(
            config=config,
            state=state,
            env=self.env,
            output_dir=self.output_dir,
            workspace=self.workspace,
            registry=registry,
            post=lambda e: runner.post(e),
            redactor=self.redactor,
            jsonl=self.jsonl,
            config_dir=self.config_path.parent.resolve(),
        )
        runner = self.runner = ExtensionRunner(services)
        record_inputs(state, imports, prompt)
        for tool in builtin_tools():
            registry.tools[tool.name] = (tool, "builtin", True)
        state.extensions_loaded = await load_all(services, lambda msg: self._warn(services, msg))
        provider = self._provider_for(model, registry)
        tools: list[AgentTool] = [entry[0] for entry in registry.tools.values()]
        transcript_path = self.output_dir / TRANSCRIPT_FILE
        session_id = str(uuid.uuid4())
        session = AgentSession(
            session_id=session_id,
            model=model,
            resolve_provider=lambda m: self._provider_for(m, registry) if m.provider != model.provider else provider,
            tools=tools,
            system_prompt=config.harness.system_prompt or SYSTEM_PROMPT.format(cwd=self.workspace),
            hooks=runner,
            tool_context=ToolContext(
                cwd=self.workspace, output_dir=self.output_dir, env=self._tool_env(), scrub=self.redactor.text
            ),
            transcript=Transcript(
                transcript_path,
                session_id=session_id,
                cwd=str(self.workspace),
                model=model.ref,
                scrub=self.redactor.obj,
            ),
        )
        state.add_file(transcript_path)
        runner.bind(session)
        self.session = session
        if self._cancel_reason:
            session.cancel_pending(self._cancel_reason)
        try:
            await runner.emit_named("session_start", None)
            first = UserMessage.of(assemble_prompt(imports, prompt), source="prompt")
            await session.prompt([first])
        except HarnessError as exc:
            session.abort(exc.stop_reason)
            state.stop_reason = exc.stop_reason
        except Exception as exc:  # a bug must still leave a readable record
            session.abort("error")
            self._warn(services, f"internal error: {type(exc).__name__}: {exc}")
            state.stop_reason = "error"
        finally:
            result = self._outcome(session, state)
            await runner.emit_named("session_shutdown", result)
            session.dispose()
        result.files = [str(p) for p in state.files]
        return result

    def _outcome(self, session: AgentSession, state: RunState) -> RunResult:
        end = session.last_end
        last_text = next((m.text for m in reversed(session.messages) if m.role == "assistant" and m.text), "")
        state.final_message = last_text
        reason = state.stop_reason or session.abort_reason
        if reason:
            conclusion = "cancelled" if reason == "cancelled" else "failure"
            state.stop_reason = reason
            return RunResult(1, reason, conclusion, state.model, state, session.signal.reason)
        if end is not None and end.error:
            state.stop_reason = "error"
            return RunResult(1, "error", "failure", state.model, state, end.error)
        state.stop_reason = "completed"
        return RunResult(0, "completed", "success", state.model, state)

    def _provider_for(self, model: Model, registry: Registry) -> Provider:
        entry = registry.providers.get(model.provider)
        if entry is None:
            from aw_action.extensions.provider_setup import missing_credentials_message

            raise InvocationError(missing_credentials_message(model, sorted(registry.providers)))
        return entry[0]

    def _tool_env(self) -> dict[str, str]:
        env = {k: v for k, v in self.env.items() if k not in CREDENTIAL_VARS}
        env["AW_OUTPUT_DIR"] = str(self.output_dir)
        return env

    def _warn(self, services: HostServices, message: str) -> None:
        services.state.warnings.append(message)
        self.jsonl.event("warning", message=message)
