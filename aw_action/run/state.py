"""RunState: the facts of one run, in three owned parts that sinks read.

- ``record`` (``run/record.py``): model, limits, provenance, files, prompts, how it ended;
- ``ledger`` (``run/ledger.py``): requests, turns, tool calls and their totals (the cost
  tracker writes it);
- ``journal`` (``run/journal.py``): warnings, degraded subsystems, steering notices, the budget
  stop.

Each part changes only through its own methods; the docstring of each part names its writers.
"""

from __future__ import annotations

from dataclasses import field

from aw_action.lazy_dataclass import dataclass
from aw_action.run.journal import Journal
from aw_action.run.ledger import UsageLedger
from aw_action.run.record import RunRecord


@dataclass
class RunState:
    record: RunRecord
    ledger: UsageLedger = field(default_factory=UsageLedger)
    journal: Journal = field(default_factory=Journal)

    @classmethod
    def for_model(cls, model: str) -> RunState:
        return cls(RunRecord(model))

    @property
    def model(self) -> str:
        """The run's model, as it started (the result and the records' headers name it)."""
        return self.record.model

    @property
    def current_model(self) -> str:
        """The model in use now: the run's, or the last one it switched to (``ledger.model_changes``)."""
        changes = self.ledger.model_changes
        return changes[-1].to_model if changes else self.record.model

    @property
    def elapsed_ms(self) -> int:
        return self.record.elapsed_ms
