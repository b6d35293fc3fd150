"""Built-in extension: the progress comment (opt-in: ``harness.progress-comment``, the action's
``progress-comment`` input).

One comment on the triggering issue or pull request (``github_comment.py``), created when the
session starts, edited as turns and tool calls go (a checklist of turns with the command or path
of each call and how it ended, time and cost against the budgets: ``sinks/progress.py``), and
finished with the result at shutdown: how the run ended and why, what to change, and with
``harness.progress-comment-answer`` the answer (sanitised) or the structured output.

Rate-limit friendly: changes are coalesced; one request at a time, each at least
``MIN_INTERVAL_S`` seconds after the previous one ended (and none while GitHub says to wait);
only the final update, with the result, does not wait for the interval.

It never fails the run: a failed request becomes one warning and a degraded notice
(``progress-comment``); a refusal that another try will not change (no permission, a fork's
read-only token, no such issue) stops further tries. Requests run in a daemon thread, so a hung
API can hold neither the event loop nor the process's exit; the last update waits at most
``FINAL_WAIT_S`` seconds (``STOP_WAIT_S`` after a cancel or the deadline).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from aw_action.agent.events import ToolExecutionEnd, ToolExecutionStart, TurnEnd, TurnStart
from aw_action.extensions.api import ExtensionAPI
from aw_action.extensions.github_comment import CommentTarget, IssueComments, comment_target, failure
from aw_action.run.result import RunResult
from aw_action.sinks.progress import CallLine, Links, TurnLine, render_progress
from aw_action.sinks.readable import failure_of
from aw_action.sinks.summary_story import describe

MIN_INTERVAL_S = 10.0
UNKNOWN_TOOL = "(unknown tool)"
FINAL_WAIT_S = 10.0
STOP_WAIT_S = 1.0
HINT = (
    "give the job `issues: write` and `pull-requests: write` (a fork's pull request gets a read-only "
    "token), or turn progress-comment off"
)


async def _off_loop(call: Callable[[], None]) -> None:
    """``call()`` in a daemon thread; awaiting it may be abandoned, the thread then ends alone."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[None] = loop.create_future()

    def settle(exc: BaseException | None) -> None:
        if not done.done():
            done.set_exception(exc) if exc is not None else done.set_result(None)

    def work() -> None:
        error: BaseException | None = None
        try:
            call()
        except Exception as exc:
            error = exc
        with contextlib.suppress(RuntimeError):  # the loop has closed: nobody waits any more
            loop.call_soon_threadsafe(settle, error)

    threading.Thread(target=work, name="aw-progress-comment", daemon=True).start()
    await done


class ProgressComment:
    def __init__(self, api: ExtensionAPI, target: CommentTarget, comments: IssueComments) -> None:
        self.api = api
        self.target = target
        self.comments = comments
        self.interval_s = MIN_INTERVAL_S
        self.turns: list[TurnLine] = []
        self.calls: dict[str, CallLine] = {}
        self.disabled = False
        self.warned = False
        self._dirty = asyncio.Event()
        self._last = float("-inf")
        self._wait_until = 0.0
        self._worker: asyncio.Task[None] | None = None
        self._sending: asyncio.Task[None] | None = None
        run, server = api.runner_facts.run_id, api.runner_facts.server
        self.links = Links(f"{server}/{target.repository}/actions/runs/{run}" if run else None)

    def on_start(self, event: Any, ctx: Any) -> None:
        self._worker = asyncio.get_running_loop().create_task(self._work())
        self._dirty.set()

    def on_event(self, event: Any, ctx: Any) -> None:
        if isinstance(event, TurnStart):
            state = self.api.state
            self.turns.append(TurnLine(state.ledger.next_turn, prompt=state.record.current_prompt or 1))
        elif isinstance(event, ToolExecutionStart) and self.turns:
            known = event.tool_name in self.api.services.registry.tools  # a made-up name is the model's text
            call = CallLine(describe(event.tool_name, event.args) if known else UNKNOWN_TOOL)
            self.calls[event.tool_call_id] = call
            self.turns[-1].calls.append(call)
        elif isinstance(event, ToolExecutionEnd) and event.tool_call_id in self.calls:
            call = self.calls[event.tool_call_id]
            call.ok = not event.is_error
            if event.is_error and call.what != UNKNOWN_TOOL:  # its error repeats the made-up name
                call.status, call.error = failure_of(event.result.text)
        elif isinstance(event, TurnEnd) and self.turns:
            self.turns[-1].done = event.stop_reason is None
            self.turns[-1].stopped = event.stop_reason
        else:
            return
        self._dirty.set()

    def body(self, result: RunResult | None = None) -> str:
        now = datetime.now(UTC).strftime("%H:%M:%S UTC")
        state, limits = self.api.state, self.api.services.limits
        answer = self.api.config.harness.progress_comment_answer
        text = render_progress(
            state, limits, self.turns, result=result, show_answer=answer, links=self.links, updated=now
        )
        return self.api.services.redactor.text(text)

    async def _work(self) -> None:
        while not self.disabled:
            await self._dirty.wait()
            delay = max(self._last + self.interval_s, self._wait_until) - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            self._dirty.clear()
            self._sending = asyncio.get_running_loop().create_task(self._send(self.body()))
            await asyncio.shield(self._sending)

    async def _send(self, body: str) -> None:
        """One write; the interval counts from its end, so writes arrive at least that far apart."""
        try:
            await _off_loop(lambda: self.comments.put(body))
        except Exception as exc:
            self._failed(exc)
        finally:
            self._last = time.monotonic()

    def _failed(self, exc: BaseException) -> None:
        """Warn (written at once: a request fails outside any event, and a queued warning could
        follow ``session_end``) and degrade; a permanent refusal ends the tries."""
        what = failure(exc)
        self._wait_until = time.monotonic() + what.wait_s
        self.disabled = self.disabled or what.permanent
        if self.warned and not what.permanent:
            return
        self.warned = True
        stop = "; no further updates" if what.permanent else ""
        message = f"progress comment on {self.target}: {what.message}{stop}"
        self.api.state.journal.warn(message, announce=False)
        self.api.services.jsonl.event("warning", message=message, extension=self.api.name)
        self.api.degrade("progress-comment", message, HINT)

    async def on_shutdown(self, result: RunResult, ctx: Any) -> None:
        """The last update, with the result; bounded, never raises."""
        budget = STOP_WAIT_S if result.stop_reason in ("cancelled", "timeout") else FINAL_WAIT_S
        deadline = time.monotonic() + budget
        if self._worker is not None:
            self._worker.cancel()
        sending = self._sending
        if sending is not None and not sending.done():
            await asyncio.wait({sending}, timeout=budget)
            if not sending.done():
                return  # a request still hangs: another could duplicate the comment
        hold = self._wait_until - time.monotonic()  # GitHub said to wait (a rate limit)
        if self.disabled or hold > deadline - time.monotonic():
            return
        if hold > 0:
            await asyncio.sleep(hold)
        final = asyncio.get_running_loop().create_task(self._send(self.body(result)))
        await asyncio.wait({final}, timeout=max(deadline - time.monotonic(), 0.1))


def setup(api: ExtensionAPI) -> None:
    if not api.config.harness.progress_comment:
        return
    target = comment_target(api.runner_facts)
    token = api.env.get("GITHUB_TOKEN", "").strip()
    if isinstance(target, str) or not token:
        why = target if isinstance(target, str) else "no GITHUB_TOKEN (the github-token input)"
        api.warn(f"progress-comment is on, but {why}: no progress comment")
        return
    comments = IssueComments(target, token, api.runner_facts.api)
    progress = ProgressComment(api, target, comments)
    api.on("session_start", progress.on_start)
    api.on("*", progress.on_event)
    api.on("session_shutdown", progress.on_shutdown)
