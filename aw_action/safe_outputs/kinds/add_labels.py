"""``add_labels``: propose labels for an existing issue or pull request (``target``), from the
config's ``allowed`` list when it has one (``labelling.py``). Adding labels is idempotent by
itself."""

from __future__ import annotations

from typing import Any

from aw_action.safe_outputs.kinds import labelling
from aw_action.safe_outputs.kinds.apply_api import GitHub


class Kind(labelling.LabelsKind):
    name = "add_labels"
    ACTION = "Propose adding labels to an existing issue or pull request."
    VERB = "add"

    def change(self, github: GitHub, number: int, labels: tuple[str, ...]) -> dict[str, Any]:
        github.retry(lambda: github.label(number, labels))
        return {"labels": list(labels)}


KIND = Kind()
