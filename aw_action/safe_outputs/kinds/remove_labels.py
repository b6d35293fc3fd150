"""``remove_labels``: propose removing labels from an existing issue or pull request
(``target``), from the config's ``allowed`` list when it has one (exact names; gh-aw's glob
patterns and ``blocked`` list are not supported; ``labelling.py``). A label the item does not
carry is skipped, so removing is idempotent by itself."""

from __future__ import annotations

from typing import Any

from aw_action.safe_outputs.kinds import labelling
from aw_action.safe_outputs.kinds.apply_api import GitHub


class Kind(labelling.LabelsKind):
    name = "remove_labels"
    ACTION = "Propose removing labels from an existing issue or pull request (a label it does not carry is skipped)."
    VERB = "remove"

    def change(self, github: GitHub, number: int, labels: tuple[str, ...]) -> dict[str, Any]:
        removed = github.retry(lambda: github.unlabel(number, labels))
        return {"removed": list(removed)}


KIND = Kind()
