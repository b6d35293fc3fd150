"""How a replay came out, judged once from what the watch saw and how the run stopped.

- ``same`` (exit 0): every reply was played and every replayed tool result matched; a recorded
  run that was stopped from outside (cancelled, timed out) is the same once the replay reaches
  the place it stopped;
- ``paused`` (exit 0): ``--until`` reached, the workspace as the recorded run had it then;
- ``diverged`` (exit 1): the first difference, with its turn, call and diff (a tool result; a
  request the recording cannot answer; a replay that stops elsewhere or otherwise than the
  recorded run);
- ``live`` (``--continue``): the replayed part matched and the live model went on; the exit
  code is the run's (0 completed, 1 failure); a run that ended within the recording is judged
  as any replay;
- ``stopped`` (exit 1): the replay itself was cancelled or ran out of time.
"""

from __future__ import annotations

from typing import Literal

from aw_action.lazy_dataclass import dataclass
from aw_action.replay.recording import Recording
from aw_action.replay.watch import EXTERNAL_STOPS, STOP_DIVERGED, STOP_RECORDING_ENDED, Divergence, ReplayWatch
from aw_action.run.result import Outcome

Kind = Literal["same", "paused", "diverged", "live", "stopped"]


@dataclass(frozen=True)
class Verdict:
    kind: Kind
    exit_code: int
    message: str
    turns: int
    """Turns the replay completed."""
    divergence: Divergence | None = None


def judge(watch: ReplayWatch, recording: Recording, stop_reason: str, turns: int) -> Verdict:
    """The verdict of a replay that ended with ``stop_reason`` after ``turns`` turns."""
    recorded = recording.end.stop_reason
    external = recorded in EXTERNAL_STOPS
    provider = watch.provider

    def diverged(reason: str, turn: int | None = None) -> Verdict:
        return Verdict("diverged", 1, reason, turns, Divergence(turn=turn or turns + 1, reason=reason))

    if watch.divergence is not None:
        return Verdict("diverged", 1, watch.divergence.reason, turns, watch.divergence)
    if stop_reason in EXTERNAL_STOPS:
        return Verdict("stopped", 1, f"the replay was stopped ({stop_reason}) after turn {turns}", turns)
    if watch.recording_ended is not None:
        if recorded != "completed":
            return Verdict("same", 0, f"replayed up to where the recorded run stopped ({recorded})", turns)
        return diverged(f"turn {turns + 1}: {watch.recording_ended}")
    if provider.problem is not None:
        if external and not provider.remaining:
            return Verdict("same", 0, f"replayed up to where the recorded run stopped ({recorded})", turns)
        return diverged(f"turn {turns + 1}: {provider.problem}")
    if watch.paused:
        message = f"stopped before turn {turns + 1} as asked: the workspace is as the recorded run had it then"
        return Verdict("paused", 0, message, turns)
    if watch.plan.live is not None and provider.live_requests:
        live = watch.plan.live.ref
        code = Outcome.of(stop_reason).exit_code
        return Verdict("live", code, f"replayed the recorded turns, then {live} went on live: {stop_reason}", turns)
    if provider.remaining:
        left = provider.next_turn
        return diverged(f"the replay ended ({stop_reason}) after turn {turns}; the recording goes on to turn {left}")
    if stop_reason not in (recorded, STOP_DIVERGED, STOP_RECORDING_ENDED) and not external:
        return diverged(f"the replay ended {stop_reason}; the recorded run ended {recorded}", turns)
    return Verdict("same", 0, f"all {turns} turns replayed the same (the recorded run ended {recorded})", turns)
